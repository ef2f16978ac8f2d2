import { randomBytes } from 'node:crypto';
import { constants, type Dirent, type Stats } from 'node:fs';
import {
  chmod,
  copyFile,
  lstat,
  lutimes,
  mkdir,
  open,
  opendir,
  readlink,
  realpath,
  rename,
  rm,
  symlink,
  utimes,
} from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { abortedError } from '../../errors/aborted-error.js';
import { invalidArgument } from '../../errors/invalid-argument.js';
import { WorkspaceError } from '../../errors/workspace-error.js';
import { DirectoryHandle, PROC_FD_WALKS } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';

/** Options of {@link copyDirectoryTree}. */
export interface CopyDirectoryTreeOptions {
  /** Absolute path of the directory to copy (links in the path itself are followed). */
  source: string;
  /** Absolute path of the copy; must not exist. Its parent must. */
  destination: string;
  signal?: AbortSignal | undefined;
  /** Files copied at once (default 16). */
  concurrency?: number | undefined;
}

/** What {@link copyDirectoryTree} did. */
export interface CopyDirectoryTreeResult {
  /** `reflink` when every regular file was cloned copy-on-write, `copy` when its bytes were copied. */
  method: 'reflink' | 'copy';
  /** Regular files copied. */
  files: number;
  /** Bytes of the regular files copied. */
  bytes: number;
}

/** Errors of a clone the file system cannot do: fall back to copying bytes. */
const NO_REFLINK = new Set(['ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EINVAL', 'ENOSYS', 'ENOTTY']);
/** Clones, or fails: never a silent byte copy. Never replaces a file. */
const CLONE_FLAGS = constants.COPYFILE_FICLONE_FORCE | constants.COPYFILE_EXCL;
/** Opens a source file: never through a link, never blocking (a FIFO swapped in cannot hang it). */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Copies the directory tree at `source` to `destination`, which must not exist. Nothing is
 * followed: symbolic links are copied as links (their target verbatim), directories are opened
 * with `O_NOFOLLOW` from their parent's descriptor (so one swapped for a link during the copy
 * is never entered), files are opened `O_NOFOLLOW` and copied from that descriptor. Sockets,
 * FIFOs and devices are skipped. Modes and modification times are kept.
 *
 * Regular files are cloned copy-on-write (`FICLONE`) where the file system can; the first
 * file tells, and when it cannot (another file system, ext4, tmpfs) every file is copied.
 *
 * The tree is written into a `.<name>.partial-<random>` sibling whose directories stay `0700`
 * until their content is done, then renamed to `destination`: a failure or an abort removes
 * it and never leaves a half-written `destination`.
 *
 * It is not a snapshot: files written meanwhile are copied as they are when read. An abort is
 * seen before each entry (a file being copied is finished first).
 *
 * Errors: `INVALID_ARGUMENT` naming `source` or `destination` (not absolute, missing, not a
 * directory, destination exists or lies inside the source), `ABORTED`, or the file system's
 * own error.
 */
export async function copyDirectoryTree(
  options: CopyDirectoryTreeOptions,
): Promise<CopyDirectoryTreeResult> {
  const { source, destination, signal } = options;
  if (typeof source !== 'string' || !isAbsolute(source)) {
    throw invalidArgument('source', 'must be an absolute path');
  }
  if (typeof destination !== 'string' || !isAbsolute(destination)) {
    throw invalidArgument('destination', 'must be an absolute path');
  }
  if (signal?.aborted) throw abortedError(signal);
  const sourceReal = await realDirectory(source, 'source');
  const parent = await realDirectory(dirname(destination), 'destination');
  if (parent === sourceReal || parent.startsWith(`${sourceReal}/`)) {
    throw invalidArgument('destination', `must not be inside the source ${source}`);
  }
  await assertAbsent(destination);
  const root = DirectoryHandle.open(sourceReal);
  const partial = join(
    parent,
    // Cut so that the name stays within NAME_MAX (255 bytes) for any destination name.
    `.${basename(destination).slice(0, 64)}.partial-${randomBytes(6).toString('hex')}`,
  );
  const copier = new TreeCopier(options.concurrency ?? 16, signal);
  try {
    await mkdir(partial, { mode: 0o700 });
    await copier.directory(root, partial);
    if (signal?.aborted) throw abortedError(signal);
    await assertAbsent(destination);
    await rename(partial, destination);
  } catch (error) {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  } finally {
    root.close();
  }
  return {
    method: copier.method === 'copy' ? 'copy' : 'reflink',
    files: copier.files,
    bytes: copier.bytes,
  };
}

async function realDirectory(target: string, field: string): Promise<string> {
  try {
    const real = await realpath(target);
    if (!(await lstat(real)).isDirectory())
      throw invalidArgument(field, `is not a directory: ${target}`);
    return real;
  } catch (error) {
    if (WorkspaceError.isInstance(error)) throw error;
    if (errnoOf(error) === 'ENOENT') throw invalidArgument(field, `does not exist: ${target}`);
    if (errnoOf(error) === 'ENOTDIR') throw invalidArgument(field, `is not a directory: ${target}`);
    throw error;
  }
}

async function assertAbsent(destination: string): Promise<void> {
  try {
    await lstat(destination);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw error;
  }
  throw invalidArgument('destination', `exists already: ${destination}`);
}

/** One copy's state: the concurrency gate, the method found, the counts. */
class TreeCopier {
  method: 'unknown' | 'reflink' | 'copy' = 'unknown';
  files = 0;
  bytes = 0;
  #probe: Promise<boolean> | undefined;
  #free: number;
  /** Waiting tasks, served last-in first-out so the walk goes deep before wide (few open directories). */
  readonly #waiting: (() => void)[] = [];
  #failure: unknown;
  readonly #signal: AbortSignal | undefined;

  constructor(concurrency: number, signal: AbortSignal | undefined) {
    this.#free = Math.max(1, concurrency);
    this.#signal = signal;
  }

  /** Copies the content of the open source directory into the existing `target`, then its mode and times. */
  async directory(handle: DirectoryHandle, target: string): Promise<void> {
    const entries = await this.#gated(async () => {
      const found: Dirent[] = [];
      for await (const entry of await opendir(handle.ref)) found.push(entry);
      return found;
    });
    const results = await Promise.allSettled(
      entries.map((entry) => this.#entry(handle, entry, join(target, entry.name))),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await this.#gated(async () => {
      const stats = handle.stat();
      await chmod(target, stats.mode & 0o7777);
      await utimes(target, seconds(stats.atimeMs), seconds(stats.mtimeMs));
    });
  }

  /**
   * Copies one entry. Each step reports `undefined` when done or the entry's new kind when it
   * was replaced since it was listed (a file swapped for a link, ...); it is then copied as that.
   */
  async #entry(parent: DirectoryHandle, entry: Dirent, target: string): Promise<void> {
    let kind: Kind | undefined = kindOfEntry(entry);
    for (let changes = 0; kind !== undefined; changes += 1) {
      if (changes === MAX_CHANGES) throw changedError(parent.child(entry.name));
      const step: Kind = kind;
      if (step === 'directory') kind = await this.#subdirectory(parent, entry.name, target);
      else kind = await this.#gated(() => this.#copy(step, parent, entry.name, target));
    }
  }

  async #copy(kind: Kind, parent: DirectoryHandle, name: string, target: string) {
    if (kind === 'file') return this.#file(parent, name, target);
    if (kind === 'link') return this.#link(parent, name, target);
    if (kind === 'unknown') return kindOfPath(parent.child(name));
    return undefined;
  }

  async #subdirectory(parent: DirectoryHandle, name: string, target: string) {
    const opened = await this.#gated(async () => {
      let handle: DirectoryHandle;
      try {
        handle = parent.openChild(name);
      } catch (error) {
        const code = errnoOf(error);
        if (code !== 'ELOOP' && code !== 'ENOTDIR' && code !== 'ENOENT') throw error;
        return kindOfPath(parent.child(name));
      }
      try {
        await mkdir(target, { mode: 0o700 });
      } catch (error) {
        handle.close();
        throw error;
      }
      return handle;
    });
    if (!(opened instanceof DirectoryHandle)) return opened;
    try {
      await this.directory(opened, target);
    } finally {
      opened.close();
    }
    return undefined;
  }

  async #link(parent: DirectoryHandle, name: string, target: string): Promise<Kind | undefined> {
    let stats: Stats;
    let linkTarget: string;
    try {
      stats = await lstat(parent.child(name));
      if (!stats.isSymbolicLink()) return kindOfEntry(stats);
      linkTarget = await readlink(parent.child(name));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      if (errnoOf(error) === 'EINVAL') return kindOfPath(parent.child(name));
      throw error;
    }
    await symlink(linkTarget, target);
    await lutimes(target, seconds(stats.atimeMs), seconds(stats.mtimeMs));
    return undefined;
  }

  async #file(parent: DirectoryHandle, name: string, target: string): Promise<Kind | undefined> {
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(parent.child(name), FILE_FLAGS);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP' || code === 'EISDIR') return kindOfPath(parent.child(name));
      throw error;
    }
    try {
      const stats = await file.stat();
      if (!stats.isFile()) return kindOfEntry(stats);
      // On Linux the descriptor's own path: the file opened (and checked) is the file copied.
      const from = PROC_FD_WALKS ? `/proc/self/fd/${file.fd}` : parent.child(name);
      await this.#copyBytes(from, target);
      // The copy has the mode already (`copyFile` sets it from the descriptor).
      await utimes(target, seconds(stats.atimeMs), seconds(stats.mtimeMs));
      this.files += 1;
      this.bytes += stats.size;
      return undefined;
    } finally {
      await file.close();
    }
  }

  async #copyBytes(from: string, to: string): Promise<void> {
    if (this.method === 'unknown' && this.#probe !== undefined)
      await this.#probe.catch(() => false);
    if (this.method === 'copy') return copyFile(from, to, constants.COPYFILE_EXCL);
    if (this.method === 'reflink') return copyFile(from, to, CLONE_FLAGS);
    // The first file tells whether this file system clones; the others wait for it.
    this.#probe = clone(from, to).then((cloned) => {
      this.method = cloned ? 'reflink' : 'copy';
      return cloned;
    });
    if (!(await this.#probe)) await copyFile(from, to, constants.COPYFILE_EXCL);
  }

  /** Runs `task` when a slot is free; refuses once the copy failed or was aborted. */
  async #gated<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free === 0) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#free -= 1;
    try {
      if (this.#signal?.aborted) throw abortedError(this.#signal);
      if (this.#failure !== undefined) throw this.#failure;
      return await task();
    } catch (error) {
      this.#failure ??= error;
      throw error;
    } finally {
      const next = this.#waiting.pop();
      if (next) next();
      else this.#free += 1;
    }
  }
}

/** Seconds since the epoch of a time of `stats`, finer than its `Date` (which keeps milliseconds). */
const seconds = (milliseconds: number): number => milliseconds / 1000;

/** Clones `from` to `to`: true when done, false when the file system cannot clone. */
async function clone(from: string, to: string): Promise<boolean> {
  try {
    await copyFile(from, to, CLONE_FLAGS);
    return true;
  } catch (error) {
    if (!NO_REFLINK.has(errnoOf(error) ?? '')) throw error;
    await rm(to, { force: true });
    return false;
  }
}

/** What an entry is, as far as copying goes; `other` (socket, FIFO, device) is skipped. */
type Kind = 'directory' | 'file' | 'link' | 'unknown';
/** Times an entry may change type under the copy before it gives up. */
const MAX_CHANGES = 4;

function kindOfEntry(entry: Dirent | Stats): Kind | undefined {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) {
    return undefined;
  }
  return 'unknown';
}

/** The kind of the entry at `path` now; `undefined` when it is gone or is to be skipped. */
async function kindOfPath(path: string): Promise<Kind | undefined> {
  try {
    return kindOfEntry(await lstat(path));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** An entry kept changing type while it was copied. */
function changedError(path: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_ARGUMENT',
    message: `source changed type ${MAX_CHANGES} times while it was copied: ${path}`,
    details: { field: 'source' },
  });
}
