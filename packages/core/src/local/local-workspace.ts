import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
} from '@agent-workspace/protocol';
import { readGitChanges } from '../git/read-git-changes.js';
import { readGitDiff } from '../git/read-git-diff.js';
import { BaseWorkspace, type CommandRequest } from '../workspace/base-workspace.js';
import { copyFileAtomic } from './copy-file-atomic.js';
import { DEFAULT_MAX_OUTPUT_BYTES, runLocalCommand } from './run-local-command.js';

/** Options of {@link LocalWorkspace}. */
export interface LocalWorkspaceOptions {
  /** Directory relative paths resolve against. Relative values resolve against `process.cwd()`. Default `process.cwd()`. */
  workingDir?: string;
  /** Cap on captured bytes per stream; the tail is kept. Default 10 MiB. */
  maxOutputBytes?: number;
  /** Variables merged over `process.env` for every command (a command's own `env` wins). */
  env?: Record<string, string>;
}

/**
 * A workspace on this machine. Commands run with `bash -c` in their own process group, so a
 * timeout or abort kills the whole tree; files are copied by streaming and written atomically.
 *
 * @example
 * ```ts
 * await using workspace = new LocalWorkspace({ workingDir: '/tmp/project' });
 * const result = await workspace.executeCommand('ls -la');
 * ```
 */
export class LocalWorkspace extends BaseWorkspace {
  readonly kind = 'local';
  readonly #maxOutputBytes: number;
  readonly #env: Record<string, string>;
  /** Aborted by `close()`: stops every command still running. */
  readonly #closing = new AbortController();

  constructor(options: LocalWorkspaceOptions = {}) {
    super({ workingDir: path.resolve(options.workingDir ?? process.cwd()) });
    this.#maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.#env = options.env ?? {};
    // Every running command listens on this signal; any number may run at once.
    setMaxListeners(0, this.#closing.signal);
  }

  protected runCommand(request: CommandRequest): Promise<CommandResult> {
    const closing = this.#closing.signal;
    return runLocalCommand({
      ...request,
      env: { ...this.#env, ...request.env },
      signal: request.signal ? AbortSignal.any([request.signal, closing]) : closing,
      maxOutputBytes: this.#maxOutputBytes,
    });
  }

  protected runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return copyFileAtomic({ sourcePath, destinationPath });
  }

  protected runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return copyFileAtomic({ sourcePath, destinationPath });
  }

  protected runGitChanges(repositoryPath: string): Promise<GitChange[]> {
    return readGitChanges({ path: repositoryPath });
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return readGitDiff({ path: filePath });
  }

  /** Nothing to suspend on this machine: resolves at once. */
  protected override async runPause(): Promise<void> {}

  /** Nothing to resume on this machine: resolves at once. */
  protected override async runResume(): Promise<void> {}

  protected async runClose(): Promise<void> {
    this.#closing.abort(new Error('workspace closed'));
  }
}
