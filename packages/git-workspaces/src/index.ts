export { CloneProvisioner } from './clone/clone-provisioner.js';
export {
  describeUnsavedWork,
  type FindUnsavedWorkOptions,
  findUnsavedWork,
  hasUnsavedWork,
  UNSAVED_PATHS_LIMIT,
  type UnsavedWork,
} from './internal/find-unsaved-work.js';
export { isGitLockError } from './internal/retry-git-lock.js';
export { defaultGitWorkspacesRoot } from './internal/tree-layout.js';
export {
  DEFAULT_POST_CREATE_TIMEOUT_MS,
  POST_CREATE_OUTPUT_LIMIT,
  type PostCreateOptions,
  type PostCreateResult,
  type PostCreateStep,
  type RunPostCreateOptions,
  runPostCreate,
} from './post-create/run-post-create.js';
export {
  DEFAULT_REAP_TIMEOUT_MS,
  type GitProvisionerOptions,
  ManagedTreeProvisioner,
  type TreeLocation,
} from './provisioner/managed-tree-provisioner.js';
export {
  parseProvisionConfig,
  projectConfigSchema,
  provisionConfigSchema,
} from './provisioner/parse-provision-config.js';
export type {
  ProjectConfig,
  ProvisionConfig,
  ProvisionCreateOptions,
  ProvisionDestroyOptions,
  ProvisionDestroyResult,
  ProvisionRestoreOptions,
  WorkspaceInfo,
  WorkspaceProvisioner,
} from './provisioner/workspace-provisioner.js';
export { type LeaseTreeOptions, leaseTree, type TreeHold } from './reaper/lease-tree.js';
export {
  type DeclaredOwner,
  type DeclareTreeOwnerOptions,
  declaredOwnerSchema,
  declareTreeOwner,
  type GitWorkspaceKind,
  listOwnerRecords,
  type OwnerRecord,
  ownerRecordSchema,
  readOwnerRecord,
} from './reaper/owner-record.js';
export { readProcessStartTime } from './reaper/read-process-start-time.js';
export {
  isOwnerAlive,
  type KeptReason,
  type KeptTree,
  liveOwner,
  type ReapedTree,
  type ReapGitWorkspacesOptions,
  type ReapReport,
  reapGitWorkspaces,
} from './reaper/reap-git-workspaces.js';
export type { ForkGitWorkspaceOptions } from './workspace/fork-git-workspace.js';
export { type CreateGitWorkspaceOptions, GitWorkspace } from './workspace/git-workspace.js';
export {
  defaultProjectId,
  type GitWorkspaceOptions,
  gitWorkspaceOptionsSchema,
  parseGitWorkspaceOptions,
  type ResolvedGitWorkspaceOptions,
} from './workspace/git-workspace-options.js';
export {
  cloneWorkspaceConfigSchema,
  type GitWorkspaceConfig,
  registerGitWorkspaceTypes,
  worktreeWorkspaceConfigSchema,
} from './workspace/register-git-workspace-types.js';
export {
  parseWorktreePorcelain,
  shortBranchName,
  type WorktreeRecord,
} from './worktree/parse-worktree-porcelain.js';
export { type RemoveWorktreeOptions, removeWorktree } from './worktree/remove-worktree.js';
export { WorktreeProvisioner } from './worktree/worktree-provisioner.js';

import { registerGitWorkspaceTypes } from './workspace/register-git-workspace-types.js';

// `createWorkspace({ kind: 'worktree' | 'clone', ... })` works once this package is imported.
registerGitWorkspaceTypes();
