export type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitChangeStatus,
  GitDiff,
} from '@agent-workspace/protocol';
export {
  WorkspaceError,
  type WorkspaceErrorCode,
  type WorkspaceErrorOptions,
} from './errors/workspace-error.js';
export { type ReadGitChangesOptions, readGitChanges } from './git/read-git-changes.js';
export {
  DEFAULT_MAX_DIFF_FILE_BYTES,
  type ReadGitDiffOptions,
  readGitDiff,
} from './git/read-git-diff.js';
export { type ResolveBaseRefOptions, resolveBaseRef } from './git/resolve-base-ref.js';
export { type CopyFileAtomicOptions, copyFileAtomic } from './local/copy-file-atomic.js';
export { LocalWorkspace, type LocalWorkspaceOptions } from './local/local-workspace.js';
export {
  DEFAULT_MAX_OUTPUT_BYTES,
  type RunLocalCommandOptions,
  runLocalCommand,
} from './local/run-local-command.js';
export {
  type LocalCommandHandle,
  type StartLocalCommandOptions,
  startLocalCommand,
} from './local/start-local-command.js';
export {
  CLIENT_TIMEOUT_GRACE_MS,
  RemoteWorkspace,
  type RemoteWorkspaceOptions,
} from './remote/remote-workspace.js';
export {
  abortedError,
  BaseWorkspace,
  type BaseWorkspaceOptions,
  type CommandRequest,
  DEFAULT_COMMAND_TIMEOUT_MS,
  invalidArgument,
} from './workspace/base-workspace.js';
export {
  createWorkspace,
  type ExtensionWorkspaceConfig,
  type LocalWorkspaceConfig,
  localWorkspaceConfigSchema,
  type RemoteWorkspaceConfig,
  remoteWorkspaceConfigSchema,
  type WorkspaceConfig,
} from './workspace/create-workspace.js';
export type { ExecuteCommandOptions, Workspace } from './workspace/workspace.js';
export {
  getWorkspaceType,
  listWorkspaceKinds,
  registerWorkspaceType,
  type WorkspaceTypeDefinition,
} from './workspace/workspace-registry.js';
