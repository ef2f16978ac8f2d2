import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitCommitsPage,
  GitDiff,
} from '@agent-workspace/protocol';
import { BubblewrapSandbox } from '../command-sandbox/bubblewrap-sandbox.js';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { openDirectory } from '../fs/open-directory.js';
import { PathWalker } from '../fs/path-walker.js';
import { validateSha } from '../git/commit-range.js';
import { readGitChanges } from '../git/read-git-changes.js';
import { readGitCommitChanges } from '../git/read-git-commit-changes.js';
import { readGitCommits, validateCommitsLimit } from '../git/read-git-commits.js';
import { readGitDiff } from '../git/read-git-diff.js';
import { anySignal } from '../internal/any-signal.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../internal/output/default-max-output-bytes.js';
import {
  BaseWorkspace,
  type CapabilityHookOptions,
  type CommandRequest,
} from '../workspace/base-workspace.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import {
  type CheckedFileWatchOptions,
  checkFileWatchOptions,
  type FileWatch,
  type FileWatcher,
  type FileWatchOptions,
} from '../workspace/file-watch.js';
import type { GitChangesOptions } from '../workspace/git-changes-options.js';
import type { GitCommitsOptions, GitHistory } from '../workspace/git-history.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import type { WorkspaceFork } from '../workspace/workspace-fork.js';
import { copyFileAtomic } from './copy-file-atomic.js';
import type { ForkLocalWorkspaceOptions, LocalForkOrigin } from './fork-local-workspace.js';
import {
  DEFAULT_MAX_FILE_WATCHERS,
  type LocalSandboxOptions,
  type LocalWorkspaceOptions,
} from './local-workspace-options.js';
import { runLocalCommand } from './run-local-command.js';
import { watchDirectoryTree } from './watch-directory-tree.js';

/** What every {@link LocalWorkspace} supports beyond the core contract. */
const LOCAL_CAPABILITIES: WorkspaceCapabilities = Object.freeze({
  directoryTransfer: true,
  runtimeActions: false,
  gitHistory: true,
  fileWatch: true,
  fork: true,
});

/** The proxy user name of a {@link LocalWorkspace}'s commands (see `proxyEnvironment`). */
const COMMAND_EGRESS_SOURCE = 'command';

/**
 * A workspace on this machine. Commands run with `bash -c` in their own process group, so a
 * timeout or abort kills the whole tree; files are copied by streaming and written atomically,
 * whole directories too (the `directoryTransfer` capability: a local copy by the same rules as
 * an agent-server's archives). It reads commit history (the `gitHistory` capability:
 * `gitCommits`, `gitCommitChanges`) as an agent-server does, and watches directories (the
 * `fileWatch` capability: `watch`, on Node's `fs.watch`, confined to `workingDir`), and forks (the
 * `fork` capability: `fork()`, a copy-on-write copy of `workingDir`). It runs no runtime plugins
 * (`executeAction` and the typed actions reject with `NOT_SUPPORTED`); `pause()` and `resume()`
 * resolve at once.
 *
 * @example
 * ```ts
 * await using workspace = new LocalWorkspace({ workingDir: '/tmp/project' });
 * const result = await workspace.executeCommand('ls -la');
 * ```
 */
export class LocalWorkspace
  extends BaseWorkspace
  implements GitHistory, FileWatch, WorkspaceFork<ForkLocalWorkspaceOptions, LocalWorkspace>
{
  /** `local`; a subclass (a worktree, a scratch directory) may name its own kind. */
  readonly kind: string = 'local';
  readonly #options: LocalWorkspaceOptions;
  #forkedFrom: LocalForkOrigin | undefined;
  readonly #maxOutputBytes: number;
  readonly #env: Record<string, string>;
  /** Aborted by `close()`: stops every command still running. */
  readonly #closing = new AbortController();
  readonly #sandboxOptions: LocalSandboxOptions | undefined;
  readonly #maxFileWatchers: number;
  /** Watchers open or starting; `close()` closes them. */
  readonly #fileWatchers = new Set<Promise<FileWatcher>>();
  /** The sandbox being started or running; shared by concurrent first calls. */
  #sandbox: Promise<BubblewrapSandbox> | undefined;

  /** @throws WorkspaceError `NOT_SUPPORTED` when `sandbox` is asked for off Linux. */
  constructor(options: LocalWorkspaceOptions = {}) {
    super({ workingDir: path.resolve(options.workingDir ?? process.cwd()) });
    this.#options = options;
    this.#maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.#env = options.env ?? {};
    const maxFileWatchers = options.maxFileWatchers ?? DEFAULT_MAX_FILE_WATCHERS;
    if (!Number.isInteger(maxFileWatchers) || maxFileWatchers < 1) {
      throw invalidArgument('maxFileWatchers', 'must be a positive integer');
    }
    this.#maxFileWatchers = maxFileWatchers;
    if (options.sandbox !== undefined && process.platform !== 'linux') {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `command sandbox needs Linux with bubblewrap (this is ${process.platform})`,
      });
    }
    this.#sandboxOptions = options.sandbox === true ? {} : options.sandbox;
    // Every running command listens on this signal; any number may run at once.
    setMaxListeners(0, this.#closing.signal);
  }

  /** Whole directories, commit history and file watching, no runtime plugins. */
  override get capabilities(): WorkspaceCapabilities {
    return LOCAL_CAPABILITIES;
  }

  protected async runCommand(request: CommandRequest): Promise<CommandResult> {
    const closing = this.#closing.signal;
    const sandbox = await this.#commandSandbox();
    return runLocalCommand({
      ...request,
      env: { ...sandbox?.proxyEnvironment(COMMAND_EGRESS_SOURCE), ...this.#env, ...request.env },
      signal: anySignal([request.signal, closing]),
      maxOutputBytes: this.#maxOutputBytes,
      sandbox,
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

  protected override runUploadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return this.#copyDirectory(sourcePath, destinationPath, options.signal);
  }

  protected override runDownloadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return this.#copyDirectory(sourcePath, destinationPath, options.signal);
  }

  protected async runGitChanges(
    repositoryPath: string,
    { ref, onTruncated }: GitChangesOptions,
  ): Promise<GitChange[]> {
    return readGitChanges({
      path: repositoryPath,
      ref,
      onTruncated,
      sandbox: await this.#commandSandbox(),
    });
  }

  protected async runGitDiff(filePath: string): Promise<GitDiff> {
    return readGitDiff({ path: filePath, sandbox: await this.#commandSandbox() });
  }

  /**
   * The repository's most recent commits, newest first (see `GitHistory.gitCommits`); git runs
   * in the sandbox when there is one, as for `gitChanges`.
   */
  async gitCommits(
    repositoryPath: string,
    options: GitCommitsOptions = {},
  ): Promise<GitCommitsPage> {
    this.assertOpen();
    if (options.limit !== undefined) validateCommitsLimit(options.limit);
    const target = this.resolvePath(repositoryPath, 'path');
    return readGitCommits({
      path: target,
      limit: options.limit,
      sandbox: await this.#commandSandbox(),
    });
  }

  /**
   * The paths commit `sha` (hex only) changed against its first parent (see
   * `GitHistory.gitCommitChanges`). An unknown commit is `GIT_ERROR`.
   */
  async gitCommitChanges(repositoryPath: string, sha: string): Promise<GitChange[]> {
    this.assertOpen();
    validateSha(sha, 'sha');
    const target = this.resolvePath(repositoryPath, 'path');
    return readGitCommitChanges({ path: target, sha, sandbox: await this.#commandSandbox() });
  }

  /**
   * Watches the directory `path` (see `FileWatch.watch`). Confined to `workingDir`: `..` above
   * it, an absolute path elsewhere or a symbolic link leading out is `FORBIDDEN`, and no
   * directory below is reached through a link. `close()` ends every watcher's iteration.
   */
  async watch(directory: string, options: FileWatchOptions = {}): Promise<FileWatcher> {
    this.assertOpen();
    const checked = checkFileWatchOptions(options);
    const target = this.resolvePath(directory, 'path');
    if (checked.signal?.aborted) throw abortedError(checked.signal);
    if (this.#fileWatchers.size >= this.#maxFileWatchers) {
      throw new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message: `at most ${this.#maxFileWatchers} file watchers may be open at once`,
        details: { field: 'maxFileWatchers', limit: this.#maxFileWatchers },
      });
    }
    const starting = this.#startWatcher(target, checked, () => {
      this.#fileWatchers.delete(starting);
    });
    this.#fileWatchers.add(starting);
    starting.catch(() => this.#fileWatchers.delete(starting));
    const watcher = await starting;
    this.assertOpen(); // closed while starting: the watcher is closed too
    return watcher;
  }

  async #startWatcher(
    target: string,
    options: CheckedFileWatchOptions,
    onClose: () => void,
  ): Promise<FileWatcher> {
    const walker = PathWalker.open({ workingDir: this.workingDir, confine: true });
    let root: ReturnType<typeof openDirectory>;
    try {
      root = openDirectory(walker, target, 'path');
    } finally {
      walker.close();
    }
    const watcher = await watchDirectoryTree({ ...options, root, onClose });
    if (this.closed) await watcher.close();
    return watcher;
  }

  /**
   * A new `LocalWorkspace` on a copy of `workingDir` (see `WorkspaceFork`), with this one's
   * options (`env`, `sandbox`, limits). The copy goes to `directory` (default: a sibling
   * `<workingDir>-fork-<random>`, on the same file system so files are cloned copy-on-write
   * where it can: btrfs, XFS; else copied), keeps links as links, modes and times, and carries
   * git state when `workingDir` holds the repository (`.git`: history, index, stash,
   * uncommitted changes); processes are not carried. {@link forkedFrom} says how.
   * The fork is a plain `LocalWorkspace` the caller closes; closing it leaves its directory.
   * Commands still writing here meanwhile leave the fork with the files as the copy read them.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `directory` (relative, exists, inside
   * `workingDir`); `NOT_SUPPORTED` for a git worktree (`.git` is a file); `WORKSPACE_CLOSED`;
   * `ABORTED`. It takes no occupancy lease: hold one (`acquireWorkspace`) to keep writers out.
   */
  async fork(options: ForkLocalWorkspaceOptions = {}): Promise<LocalWorkspace> {
    this.assertOpen();
    const { copyWorkspaceDirectory } = await import('./fork-local-workspace.js');
    const { directory, origin } = await copyWorkspaceDirectory({
      workingDir: this.workingDir,
      directory: options.directory,
      signal: anySignal([options.signal, this.#closing.signal]),
    });
    const fork = new LocalWorkspace({ ...this.#options, workingDir: directory });
    fork.#forkedFrom = origin;
    return fork;
  }

  /** How {@link fork} made this workspace (original, `reflink` or `copy`, counts); else `undefined`. */
  get forkedFrom(): LocalForkOrigin | undefined {
    return this.#forkedFrom;
  }

  /** Nothing to suspend on this machine: resolves at once. */
  protected override async runPause(): Promise<void> {}

  /** Nothing to resume on this machine: resolves at once. */
  protected override async runResume(): Promise<void> {}

  protected async runClose(): Promise<void> {
    this.#closing.abort(new Error('workspace closed'));
    const watchers = await Promise.all(
      [...this.#fileWatchers].map((w) => w.catch(() => undefined)),
    );
    await Promise.all(watchers.map((watcher) => watcher?.close()));
    const sandbox = await this.#sandbox?.catch(() => undefined);
    await sandbox?.close();
  }

  /** A local copy; tar-stream loads on first use, so importing core stays cheap. */
  async #copyDirectory(
    sourcePath: string,
    destinationPath: string,
    signal: AbortSignal | undefined,
  ): Promise<DirectoryTransferResult> {
    const { copyDirectory } = await import('../internal/archive/copy-directory.js');
    const closing = this.#closing.signal;
    return copyDirectory({
      sourcePath,
      destinationPath,
      signal: anySignal([signal, closing]),
    });
  }

  /** The sandbox, started on first use; `undefined` without the `sandbox` option. */
  #commandSandbox(): Promise<BubblewrapSandbox | undefined> {
    const options = this.#sandboxOptions;
    if (options === undefined) return Promise.resolve(undefined);
    if (this.#sandbox === undefined) {
      const starting = BubblewrapSandbox.start({
        ...options,
        workingDir: this.workingDir,
        signal: this.#closing.signal,
      });
      // A failed start (say, EMFILE) is not remembered: the next call tries again.
      starting.catch(() => {
        if (this.#sandbox === starting) this.#sandbox = undefined;
      });
      this.#sandbox = starting;
    }
    return this.#sandbox;
  }
}
