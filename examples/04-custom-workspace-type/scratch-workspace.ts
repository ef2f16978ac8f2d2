import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  abortedError,
  BaseWorkspace,
  type CommandRequest,
  type CommandResult,
  type FileOperationResult,
  type GitChange,
  type GitChangesOptions,
  type GitDiff,
  invalidArgument,
  LocalWorkspace,
  WorkspaceError,
} from '@agent-workspace/core';
import {
  parseScratchWorkspaceOptions,
  type ScratchWorkspaceOptions,
} from './scratch-workspace-config.js';

/** Options of {@link ScratchWorkspace.create}. */
export type CreateScratchWorkspaceOptions = ScratchWorkspaceOptions & {
  /** Aborts the creation and its `setup` command; whatever was created is removed. */
  signal?: AbortSignal | undefined;
};

/** Longest stderr tail quoted in a failed setup's message. */
const SETUP_STDERR_TAIL = 2_000;

/**
 * A throwaway workspace: a fresh directory `<root>/<name>` created for it, optionally prepared
 * by a `setup` command, and deleted by `close()` (unless `keep`). Workspace-side paths
 * (`cwd`, upload destinations, download sources, git paths) must stay inside that directory:
 * anything else is `FORBIDDEN`. The check is lexical and binds the API only, not what commands
 * do; for isolation use a container or `LocalWorkspace`'s `sandbox`.
 *
 * Commands, files and git are delegated to an inner {@link LocalWorkspace} over the directory,
 * the way `SandboxWorkspace` delegates to a `RemoteWorkspace`.
 *
 * @example
 * ```ts
 * await using workspace = await ScratchWorkspace.create({ name: 'job-42', setup: 'git init -q' });
 * await workspace.executeCommand('echo hi > notes.txt');
 * // the directory is gone once the block ends
 * ```
 */
export class ScratchWorkspace extends BaseWorkspace {
  readonly kind = 'scratch';
  /** The directory's name under its root. */
  readonly name: string;
  /** Does the real work, on already resolved and confined input. */
  readonly #local: LocalWorkspace;
  readonly #keep: boolean;

  private constructor(options: { workingDir: string; name: string; keep: boolean }) {
    super({ workingDir: options.workingDir });
    this.name = options.name;
    this.#keep = options.keep;
    this.#local = new LocalWorkspace({ workingDir: options.workingDir });
  }

  /**
   * Validates `options`, creates `<root>/<name>` (and `root` when missing), runs `setup` in it
   * and returns the workspace. Rejects with `INVALID_CONFIG` naming the bad field,
   * `INVALID_ARGUMENT` (field `name`) when the directory already exists, `PROVISIONING_ERROR`
   * when the directory cannot be made or `setup` fails, or `ABORTED`; it then leaves nothing
   * behind but `root`.
   */
  static async create(options: CreateScratchWorkspaceOptions): Promise<ScratchWorkspace> {
    const { signal, ...rest } = options;
    const { name, root, setup, setupTimeoutMs, keep } = parseScratchWorkspaceOptions(rest);
    if (signal?.aborted) throw abortedError(signal);
    const workingDir = path.join(root, name);
    await makeFreshDirectory({ root, workingDir, name });
    const workspace = new ScratchWorkspace({ workingDir, name, keep });
    try {
      if (setup !== undefined) await workspace.#runSetup(setup, setupTimeoutMs, signal);
      if (signal?.aborted) throw abortedError(signal);
      return workspace;
    } catch (error) {
      // A failed creation removes what it made, `keep` or not; its own error is what counts.
      await workspace.close().catch(() => {});
      await rm(workingDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
      throw error;
    }
  }

  /** Refuses workspace-side paths that leave the scratch directory. */
  protected override resolvePath(target: string, field: string): string {
    const resolved = super.resolvePath(target, field);
    const relative = path.posix.relative(this.workingDir, resolved);
    if (relative === '..' || relative.startsWith('../') || path.posix.isAbsolute(relative)) {
      throw new WorkspaceError({
        code: 'FORBIDDEN',
        message: `${field} "${target}" is outside the scratch directory ${this.workingDir}`,
        details: { field, reason: 'outside' },
      });
    }
    return resolved;
  }

  protected runCommand({ command, ...options }: CommandRequest): Promise<CommandResult> {
    return this.#local.executeCommand(command, options);
  }

  protected runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return this.#local.fileUpload(sourcePath, destinationPath);
  }

  protected runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return this.#local.fileDownload(sourcePath, destinationPath);
  }

  protected runGitChanges(
    repositoryPath: string,
    options: GitChangesOptions,
  ): Promise<GitChange[]> {
    return this.#local.gitChanges(repositoryPath, options);
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return this.#local.gitDiff(filePath);
  }

  // runPause / runResume keep BaseWorkspace's NOT_SUPPORTED: a directory has nothing to suspend.

  /** Stops running commands, then deletes the directory (unless `keep`). Called once. */
  protected async runClose(): Promise<void> {
    await this.#local.close();
    if (this.#keep) return;
    try {
      // Retries cover a background process still writing into the directory.
      await rm(this.workingDir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `cannot remove the scratch directory ${this.workingDir}: ${(error as Error).message}`,
        cause: error,
        details: { errno: (error as NodeJS.ErrnoException).code },
      });
    }
  }

  /** Runs `setup` in the fresh directory; a failure or timeout is `PROVISIONING_ERROR`. */
  async #runSetup(
    setup: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const result = await this.executeCommand(setup, { timeoutMs, signal });
    if (!result.timeoutOccurred && result.exitCode === 0) return;
    const outcome = result.timeoutOccurred
      ? `timed out after ${timeoutMs} ms`
      : `exited with ${result.exitCode}`;
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `scratch setup command ${outcome}: ${result.stderr.slice(-SETUP_STDERR_TAIL).trim()}`,
      details: {
        field: 'setup',
        exitCode: result.exitCode,
        timeoutOccurred: result.timeoutOccurred,
      },
    });
  }
}

/** Creates `root` if missing and `workingDir` inside it, which must not exist yet. */
async function makeFreshDirectory(options: {
  root: string;
  workingDir: string;
  name: string;
}): Promise<void> {
  const { root, workingDir, name } = options;
  try {
    await mkdir(root, { recursive: true });
    await mkdir(workingDir, { mode: 0o700 });
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno === 'EEXIST' && (error as NodeJS.ErrnoException).path === workingDir) {
      throw invalidArgument('name', `"${name}" is already in use under ${root}`);
    }
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `cannot create the scratch directory ${workingDir}: ${(error as Error).message}`,
      cause: error,
      details: { errno },
    });
  }
}
