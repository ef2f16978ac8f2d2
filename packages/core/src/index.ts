export type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitChangeStatus,
  GitDiff,
} from '@agent-workspace/protocol';
export {
  BubblewrapSandbox,
  type BubblewrapSandboxOptions,
  type StartBubblewrapSandboxOptions,
} from './command-sandbox/bubblewrap-sandbox.js';
export type { CommandSandbox, ProcessLaunch } from './command-sandbox/command-sandbox.js';
export {
  WorkspaceError,
  type WorkspaceErrorCode,
  type WorkspaceErrorOptions,
} from './errors/workspace-error.js';
export { DirectoryHandle, PROC_FD_WALKS } from './fs/directory-handle.js';
export { type FileDestination, locateFileForWrite } from './fs/locate-file-for-write.js';
export { openDirectory } from './fs/open-directory.js';
export { type OpenedFile, openRegularFile } from './fs/open-regular-file.js';
export { type PathErrorReason, type PathSubject, pathError } from './fs/path-error.js';
export {
  MAX_SYMLINK_HOPS,
  PathWalker,
  type PathWalkerOptions,
  type Walk,
  type WalkEnd,
} from './fs/path-walker.js';
export {
  TEMPORARY_FILE_PATTERN,
  TEMPORARY_FILE_SUFFIX,
  type WriteStreamAtomicOptions,
  writeStreamAtomic,
} from './fs/write-stream-atomic.js';
export { type ReadGitChangesOptions, readGitChanges } from './git/read-git-changes.js';
export {
  DEFAULT_MAX_DIFF_FILE_BYTES,
  type ReadGitDiffOptions,
  readGitDiff,
} from './git/read-git-diff.js';
export { type ResolveBaseRefOptions, resolveBaseRef } from './git/resolve-base-ref.js';
export { type CopyFileAtomicOptions, copyFileAtomic } from './local/copy-file-atomic.js';
export {
  type LocalSandboxOptions,
  LocalWorkspace,
  type LocalWorkspaceOptions,
} from './local/local-workspace.js';
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
export type { SandboxEndpoint } from './sandbox/sandbox-endpoint.js';
export { type SandboxErrorOptions, sandboxError } from './sandbox/sandbox-error.js';
export type {
  ReleaseSandboxOptions,
  SandboxHookOptions,
  SandboxLogsOptions,
} from './sandbox/sandbox-hooks.js';
export {
  describeSandboxState,
  isSandboxGone,
  type SandboxState,
  type SandboxStatus,
} from './sandbox/sandbox-state.js';
export {
  SandboxWorkspace,
  type SandboxWorkspaceStatus,
  type StartSandboxWorkspaceOptions,
} from './sandbox/sandbox-workspace.js';
export {
  DEFAULT_LIFECYCLE_TIMEOUT_MS,
  DEFAULT_SANDBOX_RECONNECT_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  type SandboxWorkspaceOptions,
} from './sandbox/sandbox-workspace-options.js';
export {
  type WaitUntilAliveOptions,
  type WaitUntilAliveResult,
  waitUntilAlive,
} from './sandbox/wait-until-alive.js';
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
