import { type FSWatcher, watch } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.js';
import { DirectoryHandle } from '../fs/directory-handle.js';
import { errnoOf } from '../fs/path-error.js';
import {
  type CheckedFileWatchOptions,
  type FileWatcher,
  MAX_WATCHED_DIRECTORIES,
} from '../workspace/file-watch.js';
import { FileWatchQueue } from '../workspace/file-watch-queue.js';

/** Options of {@link watchDirectoryTree}. */
export interface WatchDirectoryTreeOptions extends CheckedFileWatchOptions {
  /** The watched directory, opened and checked by the caller; the watcher closes it. */
  root: DirectoryHandle;
  /** Called once when the watcher stops. */
  onClose?: (() => void) | undefined;
}

/**
 * Watches `root` (and with `recursive` every directory below it) with one non-recursive
 * `fs.watch` per directory: Node 20's own recursive mode on Linux watches every file, stats
 * synchronously and reports every existing file at start. Directories below are opened without
 * following a symbolic link and must really be where their path says (their real path is checked
 * on the open descriptor), so no link or move leads the watch out of `root`; a new directory's
 * entries are reported as `create`, so files made right after it are not missed. Resolves once
 * watching has begun.
 */
export async function watchDirectoryTree(options: WatchDirectoryTreeOptions): Promise<FileWatcher> {
  const tree = new DirectoryTree(options);
  try {
    await tree.start();
  } catch (error) {
    await tree.queue.close();
    throw error;
  }
  const { signal } = options;
  if (signal !== undefined) {
    const stop = (): void => void tree.queue.close();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  }
  return tree.queue;
}

/** One watched directory. */
interface WatchedDirectory {
  watcher: FSWatcher;
  /** Its inode: a directory of the same name that is another inode is another directory. */
  ino: number;
  /** The name Node gives events about the directory itself (moved away). */
  selfName: string;
}

/** How often a watcher checks that its directory still exists. */
const ROOT_CHECK_INTERVAL_MS = 1000;

class DirectoryTree {
  readonly queue: FileWatchQueue;
  readonly #root: DirectoryHandle;
  readonly #recursive: boolean;
  /** Watched directories by path relative to the root (`''` the root). */
  readonly #watchers = new Map<string, WatchedDirectory>();
  /** Serializes the handling of events, so they are reported in order. */
  #chain: Promise<void> = Promise.resolve();
  #closed = false;
  #rootCheck: NodeJS.Timeout | undefined;

  constructor(options: WatchDirectoryTreeOptions) {
    const { root, recursive, maxQueuedEvents, maxEventsPerSecond, onClose } = options;
    this.#root = root;
    this.#recursive = recursive;
    const stop = () => {
      this.#closed = true;
      clearInterval(this.#rootCheck);
      for (const { watcher } of this.#watchers.values()) watcher.close();
      this.#watchers.clear();
      root.close();
      onClose?.();
    };
    this.queue = new FileWatchQueue({ maxQueuedEvents, maxEventsPerSecond, stop });
  }

  async start(): Promise<void> {
    this.#chain = this.#add('', false);
    await this.#chain;
    // The open root keeps its inode alive, so inotify never reports its removal: look.
    this.#rootCheck = setInterval(() => {
      if (!this.#closed && !this.#rootExists()) {
        clearInterval(this.#rootCheck);
        this.queue.end(
          new WorkspaceError({ code: 'NOT_FOUND', message: 'the watched directory was removed' }),
        );
      }
    }, ROOT_CHECK_INTERVAL_MS);
    this.#rootCheck.unref();
  }

  #rootExists(): boolean {
    try {
      return this.#root.stat().nlink > 0;
    } catch {
      return false;
    }
  }

  /** Watches the directory `relative` (and, recursively, those below it). */
  async #add(relative: string, announce: boolean): Promise<void> {
    if (this.#closed || this.#watchers.has(relative)) return;
    if (this.#watchers.size >= MAX_WATCHED_DIRECTORIES) {
      this.queue.push({ type: 'overflow', path: '' });
      return;
    }
    let handle = this.#root;
    if (relative !== '') {
      try {
        handle = DirectoryHandle.open(this.#root.child(relative));
      } catch {
        return; // gone already, or a link: not followed
      }
      if (handle.realPath() !== `${this.#root.realPath()}/${relative}`) {
        handle.close(); // moved meanwhile, or reached through a link
        return;
      }
    }
    try {
      const ref = handle.ref || '/';
      let watched: WatchedDirectory;
      try {
        const watcher = watch(ref, (type, name) => this.#enqueue(watched, relative, type, name));
        watched = { watcher, ino: handle.stat().ino, selfName: path.basename(ref) };
      } catch (error) {
        if (relative !== '') return;
        throw watchError(error);
      }
      watched.watcher.on('error', (error) => {
        if (relative === '') this.queue.end(watchError(error));
        else this.#forget(relative);
      });
      this.#watchers.set(relative, watched);
      if (!this.#recursive) return;
      const entries = await readdir(ref, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (announce) {
          this.queue.push({ type: 'create', path: child, isDirectory: entry.isDirectory() });
        }
        if (entry.isDirectory()) await this.#add(child, announce);
      }
    } finally {
      if (handle !== this.#root) handle.close();
    }
  }

  #enqueue(
    watched: WatchedDirectory,
    directory: string,
    type: string,
    name: string | Buffer | null,
  ): void {
    this.#chain = this.#chain
      .then(() => this.#changed(watched, directory, type, name))
      .catch((error: unknown) => this.queue.end(error));
  }

  async #changed(
    watched: WatchedDirectory,
    directory: string,
    type: string,
    name: string | Buffer | null,
  ): Promise<void> {
    // Events of a directory no longer watched under this path (moved away, replaced) are stale.
    if (this.#closed || this.#watchers.get(directory) !== watched) return;
    if (typeof name !== 'string') return;
    if (name === '' || name === '.' || name === '..' || name.includes('/')) return;
    const relative = directory === '' ? name : `${directory}/${name}`;
    const stats = await lstat(this.#root.child(relative)).catch((error: unknown) => {
      const code = errnoOf(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    });
    // The directory itself was moved (inotify names no entry then; Node puts in its own name).
    if (stats === undefined && name === watched.selfName) return;
    if (this.#closed) return;
    if (stats === undefined) {
      const wasDirectory = this.#watchers.has(relative);
      this.#forget(relative);
      this.queue.push(
        wasDirectory
          ? { type: 'remove', path: relative, isDirectory: true }
          : { type: 'remove', path: relative },
      );
      return;
    }
    const isDirectory = stats.isDirectory();
    const known = this.#watchers.get(relative);
    if (known !== undefined && (!isDirectory || known.ino !== stats.ino)) this.#forget(relative);
    this.queue.push({ type: type === 'rename' ? 'create' : 'write', path: relative, isDirectory });
    if (this.#recursive && isDirectory) await this.#add(relative, true);
  }

  /** Stops watching `relative` and every directory below it. */
  #forget(relative: string): void {
    for (const [key, { watcher }] of this.#watchers) {
      if (key === relative || key.startsWith(`${relative}/`)) {
        watcher.close();
        this.#watchers.delete(key);
      }
    }
  }
}

/** `fs.watch` failures as `WorkspaceError`s: out of inotify watches is `RESOURCE_EXHAUSTED`. */
function watchError(error: unknown): WorkspaceError {
  if (WorkspaceError.isInstance(error)) return error;
  const code = errnoOf(error);
  return new WorkspaceError({
    code: code === 'ENOSPC' || code === 'EMFILE' ? 'RESOURCE_EXHAUSTED' : 'SERVER_ERROR',
    message: `cannot watch the directory: ${(error as Error).message}`,
    cause: error,
  });
}
