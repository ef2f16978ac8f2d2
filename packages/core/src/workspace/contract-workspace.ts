import path from 'node:path';
import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  WorkspaceIdentity,
} from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { type CommandRequest, commandRequestOf } from './command-request.js';
import { completeIdentity } from './complete-identity.js';
import type { GitChangesOptions } from './git-changes-options.js';
import { assertWritable } from './occupancy-state.js';
import { resolveCallerPath, resolveWorkspacePath } from './resolve-path-argument.js';
import type { ExecuteCommandOptions, Workspace } from './workspace.js';
import type { DescribedWorkspaceIdentity, WorkspaceIdentityOptions } from './workspace-identity.js';

/** Options of `BaseWorkspace` (and of {@link ContractWorkspace}, its core half). */
export interface BaseWorkspaceOptions {
  /** Absolute directory (in the workspace's file system) that relative paths resolve against. */
  workingDir: string;
}

/**
 * The core-contract half of `BaseWorkspace` (commands, files, git, pause and resume, identity,
 * close): validates arguments, resolves relative paths against `workingDir` the same way
 * everywhere, refuses calls after `close()`, and makes `close()` idempotent. Subclasses
 * implement the protected `run*` hooks with already-resolved input. Extend `BaseWorkspace`,
 * which adds the capabilities, rather than this.
 */
export abstract class ContractWorkspace implements Workspace {
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
    return this.runCommand(
      commandRequestOf(command, options, (cwd) => this.resolvePath(cwd, 'cwd')),
    );
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

  async gitChanges(repositoryPath: string, options: GitChangesOptions = {}): Promise<GitChange[]> {
    this.assertOpen();
    return this.runGitChanges(this.resolvePath(repositoryPath, 'path'), options);
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
   * {@link ContractWorkspace.describeIdentity} leaves out: `anchor`, `executionRoot` and `cwd` are
   * `workingDir`, `projectionKind` is `'canonical'`, and `workspaceId` is `workspaceIdOf` of
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
    return completeIdentity({
      workspace: this,
      kind: this.kind,
      workingDir: this.workingDir,
      described,
    });
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
    return resolveWorkspacePath(this.workingDir, target, field);
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
   * {@link ContractWorkspace.identity} fills in the rest. The default knows nothing: `{}`.
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
  /**
   * The changes under the absolute `repositoryPath`, against `options.ref` when given (a bad one
   * is `INVALID_ARGUMENT` naming `ref`); calls `options.onTruncated` when the search for nested
   * repositories stopped at a bound (see `Workspace.gitChanges`).
   */
  protected abstract runGitChanges(
    repositoryPath: string,
    options: GitChangesOptions,
  ): Promise<GitChange[]>;
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
