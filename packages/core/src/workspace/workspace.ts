import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  WorkspaceIdentity,
} from '@agent-workspace/protocol';
import type { AgentServerEndpoint, AgentServerEndpointOptions } from './agent-server-endpoint.js';
import type { WorkspaceIdentityOptions } from './workspace-identity.js';

/** Options of {@link Workspace.executeCommand}. */
export interface ExecuteCommandOptions {
  /** Directory to run in; relative paths resolve against `workingDir`. Defaults to `workingDir`. */
  cwd?: string;
  /** Kill the command (its whole process tree) after this many milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Variables merged over the environment the command would otherwise get. */
  env?: Record<string, string>;
  /** Aborting kills the command and rejects with a `WorkspaceError` of code `ABORTED`. */
  signal?: AbortSignal;
  /** Called with each chunk of standard output as it is produced. */
  onStdout?: (chunk: string) => void;
  /** Called with each chunk of standard error as it is produced. */
  onStderr?: (chunk: string) => void;
}

/**
 * A place where an agent works: run commands, move files, read git state.
 *
 * Relative paths and `cwd` resolve against {@link Workspace.workingDir} for every workspace type.
 * A command that exits non-zero is a result; transport, auth and provisioning failures are
 * `WorkspaceError`s.
 */
export interface Workspace extends AsyncDisposable {
  /** Workspace type: `'local'`, `'remote'`, `'docker'`, `'remote-api'` or an extension kind. */
  readonly kind: string;
  /** Absolute directory that relative paths resolve against. */
  readonly workingDir: string;
  /** Runs `command` with `bash -c` and resolves when it exits or times out. */
  executeCommand(command: string, options?: ExecuteCommandOptions): Promise<CommandResult>;
  /** Copies a file from the caller's machine into the workspace. */
  fileUpload(sourcePath: string, destinationPath: string): Promise<FileOperationResult>;
  /** Copies a file from the workspace to the caller's machine. */
  fileDownload(sourcePath: string, destinationPath: string): Promise<FileOperationResult>;
  /** Lists changed paths of the repository at `path`; `[]` when `path` is not in a repository. */
  gitChanges(path: string): Promise<GitChange[]>;
  /** Returns the current and base content of the file at `path`. */
  gitDiff(path: string): Promise<GitDiff>;
  /** Suspends the workspace (no-op where that means nothing). */
  pause(): Promise<void>;
  /** Resumes a paused workspace and waits until it is usable. */
  resume(): Promise<void>;
  /** Releases everything the workspace holds. Idempotent. */
  close(): Promise<void>;
  /**
   * Present only on workspaces that talk to an agent-server (remote, sandboxed): resolves to
   * its host and session key, starting a sandbox first when needed. Its presence is the
   * capability the SDK's `Conversation()` checks (see `hasAgentServer`). Local workspaces
   * do not have it.
   */
  agentServerEndpoint?(options?: AgentServerEndpointOptions): Promise<AgentServerEndpoint>;
  /**
   * Which workspace this is (a stable `workspaceId`), where commands run and how it is held
   * (see `WorkspaceIdentity`). Every `BaseWorkspace` has it; optional so that workspace types
   * written without `BaseWorkspace` stay valid (occupancy then derives the defaults).
   */
  identity?(options?: WorkspaceIdentityOptions): Promise<WorkspaceIdentity>;
}
