import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  type Stats,
  statSync,
} from 'node:fs';

/** Flags of every directory open: no symbolic link followed, never blocks (a FIFO cannot hang it). */
const DIRECTORY_FLAGS =
  constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** True where `/proc/self/fd/<fd>/<name>` looks `name` up in the directory behind `fd`. */
export const PROC_FD_WALKS = process.platform === 'linux';

/**
 * An open directory, the anchor of path walks. On Linux it holds a descriptor and names are
 * looked up through `/proc/self/fd/<fd>/<name>`, so they are found in that very directory even if
 * it was renamed or a path component above it was swapped for a symbolic link meanwhile (what
 * `openat` gives C programs). Elsewhere the directory's path stands in for the descriptor, which
 * is correct but not race-free.
 */
export class DirectoryHandle {
  /** Descriptor, or -1 where the path stands in for it. */
  readonly fd: number;
  /** Prefix under which the names of this directory are looked up. */
  readonly ref: string;
  #closed = false;

  private constructor(fd: number, ref: string) {
    this.fd = fd;
    this.ref = ref;
  }

  /**
   * Opens the directory at `target`. A last component that is a symbolic link fails with
   * `ELOOP` (or `ENOTDIR`), one that is not a directory with `ENOTDIR`, as `O_NOFOLLOW |
   * O_DIRECTORY` do.
   */
  static open(target: string): DirectoryHandle {
    if (PROC_FD_WALKS) {
      const fd = openSync(target, DIRECTORY_FLAGS);
      return new DirectoryHandle(fd, `/proc/self/fd/${fd}`);
    }
    const stats = lstatSync(target);
    if (stats.isSymbolicLink()) throw errnoError('ELOOP', target);
    if (!stats.isDirectory()) throw errnoError('ENOTDIR', target);
    return DirectoryHandle.byPath(target);
  }

  /**
   * A handle that looks names up through the absolute path `target`, holding no descriptor
   * (nothing to close): for paths on the caller's own machine, which are neither confined nor
   * guarded against a component swapped meanwhile. Links in `target` are followed.
   */
  static byPath(target: string): DirectoryHandle {
    return new DirectoryHandle(-1, target === '/' ? '' : target);
  }

  /** Path of the entry `name` of this directory, for file-system calls. */
  child(name: string): string {
    return `${this.ref}/${name}`;
  }

  /** Opens the entry `name` (`.` for a second handle of this directory, `..` for its parent). */
  openChild(name: string): DirectoryHandle {
    return DirectoryHandle.open(this.child(name));
  }

  /**
   * Opens the directory `parts` below this one, one entry at a time like {@link openChild} (no
   * link followed on the way); no parts gives a second handle of this directory. This handle
   * stays open; the caller closes the new one.
   */
  openDescendant(parts: readonly string[]): DirectoryHandle {
    let here = this.openChild('.');
    try {
      for (const part of parts) {
        const next = here.openChild(part);
        here.close();
        here = next;
      }
      return here;
    } catch (error) {
      here.close();
      throw error;
    }
  }

  /** The target of `name` when it is a symbolic link; `undefined` when it is anything else. */
  readLink(name: string): string | undefined {
    try {
      return readlinkSync(this.child(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EINVAL') return undefined;
      throw error;
    }
  }

  /** The directory's status. */
  stat(): Stats {
    return this.fd >= 0 ? fstatSync(this.fd) : statSync(this.ref || '/');
  }

  /** True when both handles hold the same directory (device and inode). */
  sameAs(other: DirectoryHandle): boolean {
    const mine = this.stat();
    const theirs = other.stat();
    return mine.dev === theirs.dev && mine.ino === theirs.ino;
  }

  /** Where the directory is now, as the kernel sees it (` (deleted)` appended once removed). */
  realPath(): string {
    return this.fd >= 0 ? readlinkSync(this.ref) : this.ref || '/';
  }

  /** Closes the descriptor. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.fd >= 0) closeSync(this.fd);
  }
}

function errnoError(code: string, target: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${target}`), { code });
}
