import os from 'node:os';
import path from 'node:path';
import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  WorkspaceIdentity,
} from '@agent-workspace/protocol';
import { checkCommandEnvironment } from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { positiveOption } from '../errors/positive-option.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { heldSharedReadLease, recordDescribedSession } from './occupancy-state.js';
import type { ExecuteCommandOptions, Workspace } from './workspace.js';
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

/** Options of {@link BaseWorkspace}. */
export interface BaseWorkspaceOptions {
  /** Absolute directory (in the workspace's file system) that relative paths resolve against. */
  workingDir: string;
}

/**
 * Template for every workspace type: validates arguments, resolves relative paths against
 * `workingDir` the same way everywhere, refuses calls after `close()`, and makes `close()`
 * idempotent. Subclasses implement the protected `run*` hooks with already-resolved input.
 */
export abstract class BaseWorkspace implements Workspace {
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
    const readLease = heldSharedReadLease(this);
    if (readLease !== undefined) {
      throw new WorkspaceError({
        code: 'FORBIDDEN',
        message:
          `destinationPath: this ${this.kind} workspace is held shared_read by "${readLease.holderId}" ` +
          `(lease ${readLease.leaseId}, since ${readLease.acquiredAt}); release it or take an ` +
          'exclusive_write lease to write',
        details: {
          field: 'destinationPath',
          leaseId: readLease.leaseId,
          holderId: readLease.holderId,
          mode: readLease.mode,
          since: readLease.acquiredAt,
        },
      });
    }
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

  /** Releases what the workspace holds; called once by `close()`. */
  protected abstract runClose(): Promise<void>;
}

/** Resolves a path on the caller's machine against the process's current directory. */
function resolveCallerPath(target: string, field: string): string {
  if (typeof target !== 'string' || target.length === 0) {
    throw invalidArgument(field, 'must be a non-empty string');
  }
  if (target.includes('\0')) throw invalidArgument(field, 'must not contain NUL bytes');
  return path.resolve(target);
}
