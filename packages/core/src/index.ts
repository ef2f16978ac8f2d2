export type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitChangeStatus,
  GitCommit,
  GitCommitsPage,
  GitDiff,
} from '@agent-workspace/protocol';
export {
  BubblewrapSandbox,
  type BubblewrapSandboxOptions,
  type StartBubblewrapSandboxOptions,
} from './command-sandbox/bubblewrap-sandbox.js';
export type {
  EgressPolicy,
  EgressRefusal,
  EgressRefusalReason,
} from './command-sandbox/egress-policy.js';
export { abortedError } from './errors/aborted-error.js';
export { invalidArgument } from './errors/invalid-argument.js';
export {
  WorkspaceError,
  type WorkspaceErrorCode,
  type WorkspaceErrorOptions,
} from './errors/workspace-error.js';
export {
  createWorkspace,
  type ExtensionWorkspaceConfig,
  type LocalWorkspaceConfig,
  type RemoteWorkspaceConfig,
  type WorkspaceConfig,
} from './factory/create-workspace.js';
export {
  getWorkspaceType,
  listWorkspaceKinds,
  registerWorkspaceType,
  type WorkspaceTypeDefinition,
} from './factory/workspace-registry.js';
export { type ReadGitChangesOptions, readGitChanges } from './git/read-git-changes.js';
export {
  type ReadGitCommitChangesOptions,
  readGitCommitChanges,
} from './git/read-git-commit-changes.js';
export { type ReadGitCommitDiffOptions, readGitCommitDiff } from './git/read-git-commit-diff.js';
export {
  type ReadGitCommitsOptions,
  readGitCommits,
  validateCommitsLimit,
} from './git/read-git-commits.js';
export {
  DEFAULT_MAX_DIFF_FILE_BYTES,
  type ReadGitDiffOptions,
  readGitDiff,
} from './git/read-git-diff.js';
export {
  DEFAULT_REPOSITORY_SEARCH_LIMITS,
  type RepositorySearchLimits,
} from './git/repository-search.js';
export { type ResolveBaseRefOptions, resolveBaseRef } from './git/resolve-base-ref.js';
export { DEFAULT_MAX_OUTPUT_BYTES } from './internal/output/default-max-output-bytes.js';
export { LocalWorkspace } from './local/local-workspace.js';
export {
  DEFAULT_MAX_FILE_WATCHERS,
  type LocalSandboxOptions,
  type LocalWorkspaceOptions,
} from './local/local-workspace-options.js';
export {
  type AcquireDirectoryOptions,
  acquireDirectory,
  type DirectoryHoldersOptions,
  directoryHolders,
} from './occupancy/acquire-directory.js';
export {
  acquireWorkspace,
  MAX_HOLDER_ID_LENGTH,
} from './occupancy/acquire-workspace.js';
export { defaultLeaseDir } from './occupancy/default-lease-dir.js';
export {
  type ExecutionSnapshot,
  type ExecutionSnapshotOptions,
  executionSnapshot,
  type OccupancyEntry,
} from './occupancy/execution-snapshot.js';
export { LEASE_GUARD_TIMEOUT_MS } from './occupancy/lease-guard.js';
export {
  canonicalDirectory,
  directoryLeaseTarget,
  type LeaseTarget,
} from './occupancy/lease-key.js';
export { LEASE_HISTORY_MS } from './occupancy/lease-record.js';
export type { OccupyingHolder } from './occupancy/occupied-error.js';
export type { AcquireWorkspaceOptions, WorkspaceLease } from './occupancy/workspace-lease.js';
export type {
  PooledWorkspaceLease,
  ReleasePooledWorkspaceOptions,
} from './pool/pooled-workspace-lease.js';
export {
  type AcquirePooledWorkspaceOptions,
  createWorkspacePool,
  WorkspacePool,
} from './pool/workspace-pool.js';
export type {
  PoolDiscardReason,
  WorkspacePoolError,
  WorkspacePoolEvent,
} from './pool/workspace-pool-event.js';
export {
  type CreatePooledWorkspaceOptions,
  DEFAULT_POOL_ACQUIRE_TIMEOUT_MS,
  DEFAULT_POOL_DRAIN_TIMEOUT_MS,
  DEFAULT_POOL_HEALTH_CHECK_TIMEOUT_MS,
  DEFAULT_POOL_IDLE_CHECK_INTERVAL_MS,
  DEFAULT_POOL_IDLE_TTL_MS,
  DEFAULT_POOL_INITIALIZE_TIMEOUT_MS,
  DEFAULT_POOL_MAX_WAITERS,
  DEFAULT_POOL_REFILL_BACKOFF,
  DEFAULT_POOL_REFILL_CONCURRENCY,
  DEFAULT_POOL_RESET_TIMEOUT_MS,
  DEFAULT_POOL_WARM_UP_TIMEOUT_MS,
  MAX_WORKSPACE_POOL_SIZE,
  MAX_WORKSPACE_POOL_TIME_MS,
  MAX_WORKSPACE_POOL_WAITERS,
  type PooledWorkspaceHook,
  type PooledWorkspaceHookOptions,
  type WorkspacePoolOptions,
} from './pool/workspace-pool-options.js';
export type { AcquireWaitStats, WorkspacePoolStats } from './pool/workspace-pool-stats.js';
export type { GitCommitsOptions, GitDiffOptions } from './remote/git-history-options.js';
export type {
  DeferredInitState,
  InitializeWorkspaceOptions,
  InitStateOptions,
} from './remote/remote-init-options.js';
export {
  CLIENT_TIMEOUT_GRACE_MS,
  RemoteWorkspace,
  type RemoteWorkspaceOptions,
} from './remote/remote-workspace.js';
export type {
  WorkspaceArchiveOptions,
  WorkspaceArchiveResult,
} from './remote/workspace-archive-options.js';
export type { SandboxEndpoint } from './sandbox/sandbox-endpoint.js';
export type {
  ReleaseSandboxOptions,
  SandboxHookOptions,
  SandboxLogsOptions,
} from './sandbox/sandbox-hooks.js';
export type { SandboxState, SandboxStatus } from './sandbox/sandbox-state.js';
export { SandboxWorkspace, type SandboxWorkspaceStatus } from './sandbox/sandbox-workspace.js';
export {
  DEFAULT_LIFECYCLE_TIMEOUT_MS,
  DEFAULT_SANDBOX_RECONNECT_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  type SandboxWorkspaceOptions,
} from './sandbox/sandbox-workspace-options.js';
export { type StartSandboxWorkspaceOptions, startOrClose } from './sandbox/start-or-close.js';
export {
  type ActionExecutor,
  actionExecutorOf,
  type ExecuteActionOptions,
} from './workspace/action-executor.js';
export {
  type AgentServerEndpoint,
  type AgentServerEndpointOptions,
  type AgentServerWorkspace,
  agentServerEndpoint,
  hasAgentServer,
} from './workspace/agent-server-endpoint.js';
export {
  BaseWorkspace,
  type BaseWorkspaceOptions,
  type CapabilityHookOptions,
  type CommandRequest,
  DEFAULT_COMMAND_TIMEOUT_MS,
} from './workspace/base-workspace.js';
export type {
  CommandSandbox,
  ProcessLaunch,
  SandboxScratch,
  WrapOptions,
} from './workspace/command-sandbox.js';
export {
  type DirectoryTransfer,
  type DirectoryTransferOptions,
  type DirectoryTransferResult,
  directoryTransferOf,
} from './workspace/directory-transfer.js';
export {
  type FileWatch,
  type FileWatchEvent,
  type FileWatchEventType,
  type FileWatcher,
  type FileWatchOptions,
  fileWatchOf,
  MAX_WATCHED_DIRECTORIES,
} from './workspace/file-watch.js';
export type { GitChangesOptions } from './workspace/git-changes-options.js';
export { type GitHistory, gitHistoryOf } from './workspace/git-history.js';
export {
  type PathInspection,
  type PathInspectionOptions,
  pathInspectionOf,
  type WorkspaceDirectoryEntry,
  type WorkspacePathInfo,
} from './workspace/path-inspection.js';
export {
  type ExposedPort,
  type ExposePortOptions,
  type PortExposure,
  portExposureOf,
} from './workspace/port-exposure.js';
export {
  type ResourceMetrics,
  type ResourceMetricsOptions,
  resourceMetricsOf,
} from './workspace/resource-metrics.js';
export {
  type BrowseOptions,
  type BrowserObservation,
  type IPythonObservation,
  type RuntimeActionOptions,
  type RuntimeActions,
  runtimeActionsOf,
} from './workspace/runtime-actions.js';
export type {
  ExecuteCommandOptions,
  OutputStreamMasker,
  Workspace,
} from './workspace/workspace.js';
export {
  NO_WORKSPACE_CAPABILITIES,
  type WorkspaceCapabilities,
} from './workspace/workspace-capabilities.js';
export {
  type WorkspaceFork,
  type WorkspaceForkOptions,
  workspaceForkOf,
} from './workspace/workspace-fork.js';
export {
  type DescribedWorkspaceIdentity,
  type WorkspaceAccessMode,
  type WorkspaceIdentity,
  type WorkspaceIdentityOptions,
  type WorkspaceIdOfOptions,
  type WorkspaceProjectionKind,
  workspaceIdOf,
} from './workspace/workspace-identity.js';
