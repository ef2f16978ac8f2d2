import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  WorkspaceIdentity,
} from '@agent-workspace/protocol';
import type { AgentServerEndpoint, AgentServerEndpointOptions } from './agent-server-endpoint.js';
import type { GitChangesOptions } from './git-changes-options.js';
import type { WorkspaceCapabilities } from './workspace-capabilities.js';
import type { WorkspaceIdentityOptions } from './workspace-identity.js';

/** Options of {@link Workspace.executeCommand}. */
export interface ExecuteCommandOptions {
  /** Directory to run in; relative paths resolve against `workingDir`. Defaults to `workingDir`. */
  cwd?: string | undefined;
  /** Kill the command (its whole process tree) after this many milliseconds. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Variables merged over the environment the command would otherwise get. */
  env?: Record<string, string> | undefined;
  /** Aborting kills the command and rejects with a `WorkspaceError` of code `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Called with each chunk of standard output as it is produced. */
  onStdout?: ((chunk: string) => void) | undefined;
  /** Called with each chunk of standard error as it is produced. */
  onStderr?: ((chunk: string) => void) | undefined;
  /**
   * Makes a masker for one output stream: a workspace that records or publishes the output
   * elsewhere (the agent-server's bash events) passes it through one per stream first, so secret
   * values given in `env` are kept out. What the command returns is not masked.
   */
  outputMasker?: (() => OutputStreamMasker) | undefined;
}

/** Masks a stream of text chunks (a value split across chunks too); `flush()` at its end. */
export interface OutputStreamMasker {
  /** The masked text that can be passed on now (maybe `''`). */
  push(chunk: string): string;
  /** The masked rest held back. */
  flush(): string;
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
  /**
   * Lists changed paths of the repository at `path` (and of repositories nested below it),
   * against `options.ref` when given; `[]` when `path` is not in a repository and none lies
   * below it. When the search for nested repositories stops at a bound, the changes found are
   * returned and `options.onTruncated` is told which bound.
   */
  gitChanges(path: string, options?: GitChangesOptions): Promise<GitChange[]>;
  /** Returns the current and base content of the file at `path`. */
  gitDiff(path: string): Promise<GitDiff>;
  /**
   * Suspends the workspace. Resolves at once where there is nothing to suspend (local
   * workspaces); rejects with `NOT_SUPPORTED` where the type cannot suspend what it runs on (a
   * `RemoteWorkspace`: a client cannot suspend its server; a provisioned type without pause
   * hooks). While a workspace is paused, its operations reject with `WORKSPACE_PAUSED`.
   */
  pause(): Promise<void>;
  /**
   * Resumes a paused workspace and waits until it is usable; resolves at once or rejects with
   * `NOT_SUPPORTED` where `pause()` does.
   */
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
   * What the workspace supports beyond this contract: whole directories (`directoryTransfer`:
   * `uploadDirectory`, `downloadDirectory`) and runtime plugin actions (`runtimeActions`:
   * `executeAction`, `runtimePlugins`, `browse`, `browseInteractive`, `runIpython`) and commit
   * history (`gitHistory`: `gitCommits`, `gitCommitChanges`). Reach them through
   * `directoryTransferOf` / `actionExecutorOf` / `gitHistoryOf`, which read this declaration.
   * Every `BaseWorkspace` declares it; a workspace without it supports none.
   */
  readonly capabilities?: WorkspaceCapabilities;
  /**
   * Which workspace this is (a stable `workspaceId`), where commands run and how it is held
   * (see `WorkspaceIdentity`). Every `BaseWorkspace` has it; optional so that workspace types
   * written without `BaseWorkspace` stay valid (occupancy then derives the defaults).
   */
  identity?(options?: WorkspaceIdentityOptions): Promise<WorkspaceIdentity>;
}
