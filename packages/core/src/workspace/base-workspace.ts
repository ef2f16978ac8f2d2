import os from 'node:os';
import path from 'node:path';
import type {
  ActionWire,
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  ObservationWire,
  RuntimePluginStatusWire,
  WorkspaceIdentity,
} from '@agent-workspace/protocol';
import { checkCommandEnvironment } from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { positiveOption } from '../errors/positive-option.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { ActionExecutor, ExecuteActionOptions } from './action-executor.js';
import { checkActionWire } from './check-action-wire.js';
import type {
  DirectoryTransfer,
  DirectoryTransferOptions,
  DirectoryTransferResult,
} from './directory-transfer.js';
import { assertWritable, heldSharedReadLease, recordDescribedSession } from './occupancy-state.js';
import {
  type BrowseOptions,
  type BrowserObservation,
  type IPythonObservation,
  type RuntimeActionOptions,
  type RuntimeActions,
  runtimeActionsOf,
} from './runtime-actions.js';
import type { ExecuteCommandOptions, Workspace } from './workspace.js';
import { NO_WORKSPACE_CAPABILITIES, type WorkspaceCapabilities } from './workspace-capabilities.js';
import {
  type DescribedWorkspaceIdentity,
  type WorkspaceIdentityOptions,
  workspaceIdOf,
} from './workspace-identity.js';

/** Default command timeout of every workspace type, in milliseconds. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

/** A command after {@link BaseWorkspace} validated it and resolved its paths. */
export interface CommandRequest {
  command: string;
  /** Absolute working directory inside the workspace. */
  cwd: string;
  timeoutMs: number;
  env: Record<string, string>;
  signal?: AbortSignal | undefined;
  onStdout?: ((chunk: string) => void) | undefined;
  onStderr?: ((chunk: string) => void) | undefined;
}

/** Options of the `run*` hooks of {@link BaseWorkspace}'s capabilities. */
export interface CapabilityHookOptions {
  signal?: AbortSignal | undefined;
}

/** Options of {@link BaseWorkspace}. */
export interface BaseWorkspaceOptions {
  /** Absolute directory (in the workspace's file system) that relative paths resolve against. */
  workingDir: string;
}

/**
 * Template for every workspace type: validates arguments, resolves relative paths against
 * `workingDir` the same way everywhere, refuses calls after `close()`, and makes `close()`
 * idempotent. Subclasses implement the protected `run*` hooks with already-resolved input.
 *
 * The optional capabilities (`capabilities`) are template methods too: every `BaseWorkspace`
 * has `uploadDirectory` / `downloadDirectory` ({@link DirectoryTransfer}) and `executeAction`,
 * `runtimePlugins`, `browse`, `browseInteractive`, `runIpython` ({@link ActionExecutor},
 * {@link RuntimeActions}). A type that supports one declares it in `capabilities` and overrides
 * its hooks (`runUploadDirectory`, `runDownloadDirectory`, `runAction`, `runRuntimePlugins`);
 * the default hooks reject with `NOT_SUPPORTED`.
 */
export abstract class BaseWorkspace
  implements Workspace, DirectoryTransfer, ActionExecutor, RuntimeActions
{
  abstract readonly kind: string;
  readonly workingDir: string;
  #closing: Promise<void> | undefined;

  constructor({ workingDir }: BaseWorkspaceOptions) {
    if (typeof workingDir !== 'string' || workingDir.length === 0) {
      throw invalidArgument('workingDir', 'must be a non-empty string');
    }
    if (!path.posix.isAbsolute(workingDir)) {
      throw invalidArgument('workingDir', `must be an absolute path, got "${workingDir}"`);
    }
    this.workingDir = path.posix.resolve(workingDir);
  }

  /** True once `close()` has been called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** What this workspace type supports beyond the core contract; the default: nothing. */
  get capabilities(): WorkspaceCapabilities {
    return NO_WORKSPACE_CAPABILITIES;
  }

  async executeCommand(
    command: string,
    options: ExecuteCommandOptions = {},
  ): Promise<CommandResult> {
    this.assertOpen();
    if (typeof command !== 'string' || command.trim().length === 0) {
      throw invalidArgument('command', 'must be a non-empty string');
    }
    const timeoutMs = positiveOption(options.timeoutMs, DEFAULT_COMMAND_TIMEOUT_MS, 'timeoutMs');
    const env = options.env ?? {};
    const problem = checkCommandEnvironment(env);
    if (problem) throw invalidArgument(problem.field, problem.reason);
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runCommand({
      command,
      cwd: this.resolvePath(options.cwd ?? '.', 'cwd'),
      timeoutMs,
      env,
      signal: options.signal,
      onStdout: options.onStdout,
      onStderr: options.onStderr,
    });
  }

  /**
   * Copies a file into the workspace. While this workspace object holds a `shared_read`
   * occupancy lease (`acquireWorkspace`), rejects with `FORBIDDEN` naming the lease.
   */
  async fileUpload(sourcePath: string, destinationPath: string): Promise<FileOperationResult> {
    this.assertOpen();
    assertWritable(this, this.kind, 'destinationPath');
    return this.runFileUpload(
      resolveCallerPath(sourcePath, 'sourcePath'),
      this.resolvePath(destinationPath, 'destinationPath'),
    );
  }

  async fileDownload(sourcePath: string, destinationPath: string): Promise<FileOperationResult> {
    this.assertOpen();
    return this.runFileDownload(
      this.resolvePath(sourcePath, 'sourcePath'),
      resolveCallerPath(destinationPath, 'destinationPath'),
    );
  }

  async gitChanges(repositoryPath: string): Promise<GitChange[]> {
    this.assertOpen();
    return this.runGitChanges(this.resolvePath(repositoryPath, 'path'));
  }

  async gitDiff(filePath: string): Promise<GitDiff> {
    this.assertOpen();
    return this.runGitDiff(this.resolvePath(filePath, 'path'));
  }

  /**
   * Copies the caller's directory `sourceDir` into the workspace's `destinationDir` (see
   * {@link DirectoryTransfer}). `FORBIDDEN` while a `shared_read` lease is held, as
   * `fileUpload`; `NOT_SUPPORTED` without the `directoryTransfer` capability.
   */
  async uploadDirectory(
    sourceDir: string,
    destinationDir: string,
    options: DirectoryTransferOptions = {},
  ): Promise<DirectoryTransferResult> {
    this.assertOpen();
    assertWritable(this, this.kind, 'destinationDir');
    const source = resolveCallerPath(sourceDir, 'sourceDir');
    const destination = this.resolvePath(destinationDir, 'destinationDir');
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runUploadDirectory(source, destination, { signal: options.signal });
  }

  /**
   * Copies the workspace's directory `sourceDir` into the caller's `destinationDir` (see
   * {@link DirectoryTransfer}); `NOT_SUPPORTED` without the `directoryTransfer` capability.
   */
  async downloadDirectory(
    sourceDir: string,
    destinationDir: string,
    options: DirectoryTransferOptions = {},
  ): Promise<DirectoryTransferResult> {
    this.assertOpen();
    const source = this.resolvePath(sourceDir, 'sourceDir');
    const destination = resolveCallerPath(destinationDir, 'destinationDir');
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runDownloadDirectory(source, destination, { signal: options.signal });
  }

  /**
   * Runs an OpenHands action on the workspace's runtime plugins (see {@link ActionExecutor}).
   * `INVALID_ARGUMENT` naming `action`, `action.action`, `action.args` or `action.timeout` when
   * malformed; `NOT_SUPPORTED` without the `runtimeActions` capability.
   */
  async executeAction(
    action: ActionWire,
    options: ExecuteActionOptions = {},
  ): Promise<ObservationWire> {
    this.assertOpen();
    checkActionWire(action);
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runAction(action, { signal: options.signal });
  }

  /** The runtime plugins behind the workspace and their state; `NOT_SUPPORTED` without them. */
  async runtimePlugins(options: CapabilityHookOptions = {}): Promise<RuntimePluginStatusWire[]> {
    this.assertOpen();
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runRuntimePlugins({ signal: options.signal });
  }

  /** Opens `url` in the browser plugin (see `RuntimeActions.browse`). */
  async browse(url: string, options?: BrowseOptions): Promise<BrowserObservation> {
    this.assertOpen();
    return runtimeActionsOf(this).browse(url, options);
  }

  /** Runs BrowserGym actions in the browser plugin (see `RuntimeActions.browseInteractive`). */
  async browseInteractive(
    browserActions: string,
    options?: BrowseOptions,
  ): Promise<BrowserObservation> {
    this.assertOpen();
    return runtimeActionsOf(this).browseInteractive(browserActions, options);
  }

  /** Runs an IPython cell in the kernel plugin (see `RuntimeActions.runIpython`). */
  async runIpython(code: string, options?: RuntimeActionOptions): Promise<IPythonObservation> {
    this.assertOpen();
    return runtimeActionsOf(this).runIpython(code, options);
  }

  async pause(): Promise<void> {
    this.assertOpen();
    await this.runPause();
  }

  async resume(): Promise<void> {
    this.assertOpen();
    await this.runResume();
  }

  /**
   * Which workspace this is, where commands run and how it is held. Defaults, for what
   * {@link BaseWorkspace.describeIdentity} leaves out: `anchor`, `executionRoot` and `cwd` are
   * `workingDir`, `projectionKind` is `'canonical'`, and `workspaceId` is {@link workspaceIdOf}
   * this machine's host name, `kind`, `anchor` (and `executionRoot` when it differs), so two
   * processes opening the same directory get the same id. `accessMode` is `'shared_read'` while
   * this object holds a shared-read lease, else `'exclusive_write'`.
   */
  async identity(options: WorkspaceIdentityOptions = {}): Promise<WorkspaceIdentity> {
    this.assertOpen();
    const { signal } = options;
    if (signal?.aborted) throw abortedError(signal);
    const described = await this.describeIdentity({ signal });
    if (signal?.aborted) throw abortedError(signal);
    recordDescribedSession(this, described.sessionId);
    const anchor = described.anchor ?? this.workingDir;
    const executionRoot = described.executionRoot ?? this.workingDir;
    return {
      workspaceId:
        described.workspaceId ??
        workspaceIdOf({ host: os.hostname(), kind: this.kind, anchor, executionRoot }),
      anchor,
      executionRoot,
      cwd: described.cwd ?? this.workingDir,
      projectionKind: described.projectionKind ?? 'canonical',
      accessMode: heldSharedReadLease(this) === undefined ? 'exclusive_write' : 'shared_read',
    };
  }

  close(): Promise<void> {
    this.#closing ??= this.runClose();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Resolves a workspace-side path against `workingDir`; `field` names it in errors. */
  protected resolvePath(target: string, field: string): string {
    if (typeof target !== 'string' || target.length === 0) {
      throw invalidArgument(field, 'must be a non-empty string');
    }
    if (target.includes('\0')) throw invalidArgument(field, 'must not contain NUL bytes');
    return path.posix.resolve(this.workingDir, target);
  }

  /** Throws `WORKSPACE_CLOSED` after `close()`. */
  protected assertOpen(): void {
    if (this.closed) {
      throw new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: `this ${this.kind} workspace is closed`,
      });
    }
  }

  /**
   * What this workspace type knows of its identity (anchor, projection, a session id, ...);
   * {@link BaseWorkspace.identity} fills in the rest. The default knows nothing: `{}`.
   */
  protected async describeIdentity(
    _options: WorkspaceIdentityOptions = {},
  ): Promise<DescribedWorkspaceIdentity> {
    return {};
  }

  protected abstract runCommand(request: CommandRequest): Promise<CommandResult>;
  protected abstract runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult>;
  protected abstract runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult>;
  protected abstract runGitChanges(repositoryPath: string): Promise<GitChange[]>;
  protected abstract runGitDiff(filePath: string): Promise<GitDiff>;
  /** Suspends the workspace; the default refuses with `NOT_SUPPORTED`. */
  protected async runPause(): Promise<void> {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `${this.kind} workspaces cannot be paused`,
    });
  }

  /** Resumes the workspace; the default refuses with `NOT_SUPPORTED`. */
  protected async runResume(): Promise<void> {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `${this.kind} workspaces cannot be resumed`,
    });
  }

  /** Copies resolved `sourcePath` (caller side) into `destinationPath`; default `NOT_SUPPORTED`. */
  protected async runUploadDirectory(
    _sourcePath: string,
    _destinationPath: string,
    _options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    throw this.#unsupported('directoryTransfer', 'copy directories');
  }

  /** Copies resolved `sourcePath` (workspace side) into `destinationPath`; default `NOT_SUPPORTED`. */
  protected async runDownloadDirectory(
    _sourcePath: string,
    _destinationPath: string,
    _options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    throw this.#unsupported('directoryTransfer', 'copy directories');
  }

  /** Runs a checked action; the default rejects with `NOT_SUPPORTED`. */
  protected async runAction(
    _action: ActionWire,
    _options: CapabilityHookOptions,
  ): Promise<ObservationWire> {
    throw this.#unsupported('runtimeActions', 'run runtime plugin actions');
  }

  /** Lists the runtime plugins; the default rejects with `NOT_SUPPORTED`. */
  protected async runRuntimePlugins(
    _options: CapabilityHookOptions,
  ): Promise<RuntimePluginStatusWire[]> {
    throw this.#unsupported('runtimeActions', 'run runtime plugin actions');
  }

  /** Releases what the workspace holds; called once by `close()`. */
  protected abstract runClose(): Promise<void>;

  #unsupported(capability: keyof WorkspaceCapabilities, what: string): WorkspaceError {
    return new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `${this.kind} workspaces cannot ${what} (no ${capability} capability)`,
      details: { capability },
    });
  }
}

/** Resolves a path on the caller's machine against the process's current directory. */
function resolveCallerPath(target: string, field: string): string {
  if (typeof target !== 'string' || target.length === 0) {
    throw invalidArgument(field, 'must be a non-empty string');
  }
  if (target.includes('\0')) throw invalidArgument(field, 'must not contain NUL bytes');
  return path.resolve(target);
}
