import { chmodSync, fchmodSync, mkdirSync } from 'node:fs';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import type { PathWalker } from '../../fs/path-walker.js';
import { archiveEntryError } from './archive-entry-error.js';

/** Permission bits a directory keeps while entries are still written into it. */
const OWNER_RWX = 0o700;

/**
 * The directories of an extraction, opened from the extraction root one component at a time and
 * never through a symbolic link (`O_NOFOLLOW`): a link in the way, whether the archive made it
 * or it was there before, is refused, so no entry is ever written through one. Missing
 * directories are created. The last directory opened is kept for the next entry. Directory
 * modes that would lock the owner out are applied by {@link ArchiveDirectories.close}.
 */
export class ArchiveDirectories {
  readonly #root: DirectoryHandle;
  readonly #walker: PathWalker | undefined;
  #cached: { key: string; handle: DirectoryHandle } | undefined;
  readonly #deferredModes: { parts: string[]; mode: number }[] = [];
  readonly #realPaths = new WeakMap<DirectoryHandle, string>();

  /**
   * @param root The extraction directory, open; the caller closes it after this.
   * @param walker When confined, each directory opened is checked to lie beneath its root.
   */
  constructor(root: DirectoryHandle, walker: PathWalker | undefined) {
    this.#root = root;
    this.#walker = walker?.confine ? walker : undefined;
  }

  /**
   * The directory `parts` names (the root for `[]`), created when missing; the handle stays owned
   * by this object. `entry` names the archive entry in errors.
   */
  open(parts: readonly string[], entry: string): DirectoryHandle {
    if (parts.length === 0) return this.#root;
    const key = parts.join('/');
    if (this.#cached?.key === key) return this.#cached.handle;
    this.#dropCached();
    let here = this.#root.openChild('.');
    try {
      for (const [index, name] of parts.entries()) {
        const next = openOrCreate(here, name, entry, parts.slice(0, index + 1).join('/'));
        here.close();
        here = next;
        this.#walker?.assertInside(here.realPath(), { input: entry, field: 'body' });
      }
    } catch (error) {
      here.close();
      throw error;
    }
    this.#cached = { key, handle: here };
    return here;
  }

  /** Where `handle` (one this object opened) is, looked up once per directory. */
  realPathOf(handle: DirectoryHandle): string {
    let known = this.#realPaths.get(handle);
    if (known === undefined) {
      known = handle.realPath();
      this.#realPaths.set(handle, known);
    }
    return known;
  }

  /** Gives the directory `parts` the permission bits `mode` (at close when they lack `u+rwx`). */
  setMode(parts: readonly string[], mode: number, entry: string): void {
    const handle = this.open(parts, entry);
    if ((mode & OWNER_RWX) === OWNER_RWX) {
      chmodHandle(handle, mode);
      return;
    }
    chmodHandle(handle, mode | OWNER_RWX);
    this.#deferredModes.push({ parts: [...parts], mode });
  }

  /** Applies the deferred modes (deepest first) and closes the directories kept open. */
  close(): void {
    this.#dropCached();
    for (const { parts, mode } of this.#deferredModes.reverse()) {
      try {
        chmodHandle(this.open(parts, parts.join('/')), mode);
      } catch {
        // Gone or replaced meanwhile: nothing to restrict.
      }
    }
    this.#deferredModes.length = 0;
    this.#dropCached();
  }

  #dropCached(): void {
    this.#cached?.handle.close();
    this.#cached = undefined;
  }
}

/** Opens directory `name` of `parent` without following a link, creating it when missing. */
function openOrCreate(
  parent: DirectoryHandle,
  name: string,
  entry: string,
  prefix: string,
): DirectoryHandle {
  for (let attempt = 0; ; attempt++) {
    try {
      return parent.openChild(name);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ENOENT' && attempt === 0) {
        try {
          mkdirSync(parent.child(name));
        } catch (mkdirError) {
          if (errnoOf(mkdirError) !== 'EEXIST') throw mkdirError;
        }
        continue;
      }
      if (code === 'ELOOP' || code === 'ENOTDIR') {
        if (parent.readLink(name) !== undefined) {
          throw archiveEntryError(
            entry,
            `would be written through the symbolic link ${JSON.stringify(prefix)}`,
            'through-symlink',
          );
        }
        throw archiveEntryError(
          entry,
          `needs ${JSON.stringify(prefix)} to be a directory, and it is not`,
          'not-directory',
        );
      }
      throw error;
    }
  }
}

function chmodHandle(handle: DirectoryHandle, mode: number): void {
  if (handle.fd >= 0) fchmodSync(handle.fd, mode & 0o777);
  else chmodSync(handle.ref || '/', mode & 0o777);
}
