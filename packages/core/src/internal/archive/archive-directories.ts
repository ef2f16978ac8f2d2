import { randomBytes } from 'node:crypto';
import { chmodSync, fchmodSync, mkdirSync, rmSync } from 'node:fs';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import type { PathWalker } from '../../fs/path-walker.js';
import { TEMPORARY_FILE_SUFFIX } from '../../fs/write-stream-atomic.js';
import { directoryOpenError, openArchiveDirectory } from './open-archive-directory.js';
import { publishStagedDirectory } from './publish-staged-directory.js';

/** Permission bits a directory keeps while entries are still written into it. */
const OWNER_RWX = 0o700;

/** A directory of the extraction, as {@link ArchiveDirectories.locate} finds it. */
export interface ArchiveDirectory {
  /** The directory, open; owned by the {@link ArchiveDirectories}. */
  handle: DirectoryHandle;
  /**
   * True when the directory is new and still staged: created by this extraction under a
   * temporary name, so nothing in it is visible at its final path until it is published.
   */
  staged: boolean;
}

/** Options of {@link ArchiveDirectories}. */
export interface ArchiveDirectoriesOptions {
  /** When confined, each directory opened is checked to lie beneath its root. */
  walker?: PathWalker | undefined;
  /** Told the absolute path of each staging directory when it is created and when it is gone. */
  onTemporaryFile?: ((event: 'created' | 'gone', path: string) => void) | undefined;
}

/** The new directory being filled under a temporary name, published when the archive leaves it. */
interface Staging {
  /** Its final path, components joined with `/`. */
  key: string;
  /** Its parent, open (a handle of its own once staged). */
  parent: DirectoryHandle;
  /** Its final name in `parent`. */
  name: string;
  /** Its temporary name in `parent`. */
  stagedName: string;
  /** Absolute path of the temporary name, when `onTemporaryFile` listens. */
  path: string | undefined;
  /** Modes set on directories below it, set again if it has to be merged. */
  modes: { parts: string[]; mode: number }[];
}

/**
 * The directories of an extraction, opened from the extraction root one component at a time and
 * never through a symbolic link (`O_NOFOLLOW`): a link in the way, whether the archive made it
 * or it was there before, is refused, so no entry is ever written through one. The last
 * directory opened is kept for the next entry. Directory modes that would lock the owner out
 * are applied by {@link ArchiveDirectories.close}.
 *
 * A missing directory is made under a temporary name (`.archive.<hex>.part`, beside its final
 * name, so on the same file system) and filled there: its files need no temporary file of
 * their own, since nothing in it is visible at its final path yet. It is published, renamed to
 * its final name, as soon as an entry lies outside it (or the extraction ends, also in error),
 * so at most one directory is staged at a time. When something took its final name meanwhile,
 * a directory is merged (entry by entry, with the rules of the extraction); anything else is a
 * refusal, and what was staged is removed.
 */
export class ArchiveDirectories {
  readonly #root: DirectoryHandle;
  readonly #walker: PathWalker | undefined;
  readonly #onTemporaryFile: ArchiveDirectoriesOptions['onTemporaryFile'];
  #cached: { key: string; handle: DirectoryHandle } | undefined;
  #staging: Staging | undefined;
  readonly #deferredModes: { parts: string[]; mode: number }[] = [];
  readonly #realPaths = new WeakMap<DirectoryHandle, string>();

  /** @param root The extraction directory, open; the caller closes it after this. */
  constructor(root: DirectoryHandle, options: ArchiveDirectoriesOptions = {}) {
    this.#root = root;
    this.#walker = options.walker?.confine ? options.walker : undefined;
    this.#onTemporaryFile = options.onTemporaryFile;
  }

  /**
   * The directory `parts` names (the root for `[]`), created when missing; the handle stays owned
   * by this object. `entry` names the archive entry in errors.
   */
  open(parts: readonly string[], entry: string): DirectoryHandle {
    return this.locate(parts, entry).handle;
  }

  /** {@link open}, also telling whether the directory is still staged. */
  locate(parts: readonly string[], entry: string): ArchiveDirectory {
    const key = parts.join('/');
    if (this.#staging !== undefined && !isWithin(key, this.#staging.key)) this.#publish();
    const staged = this.#staging !== undefined;
    if (parts.length === 0) return { handle: this.#root, staged };
    if (this.#cached?.key === key) return { handle: this.#cached.handle, staged };
    this.#dropCached();
    let here = this.#root.openChild('.');
    try {
      for (const [index, name] of parts.entries()) {
        const prefix = index === parts.length - 1 ? key : parts.slice(0, index + 1).join('/');
        const next = this.#step(here, name, entry, prefix);
        here.close();
        here = next;
        this.#walker?.assertInside(here.realPath(), { input: entry, field: 'body' });
      }
    } catch (error) {
      here.close();
      throw error;
    }
    this.#cached = { key, handle: here };
    return { handle: here, staged: this.#staging !== undefined };
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
    const { handle, staged } = this.locate(parts, entry);
    if ((mode & OWNER_RWX) === OWNER_RWX) {
      chmodHandle(handle, mode);
      if (staged) this.#staging?.modes.push({ parts: [...parts], mode });
      return;
    }
    chmodHandle(handle, mode | OWNER_RWX);
    this.#deferredModes.push({ parts: [...parts], mode });
  }

  /** Publishes the staged directory, if any; throws as publishing does. */
  finish(): void {
    if (this.#staging !== undefined) this.#publish();
  }

  /**
   * Publishes the staged directory if {@link finish} did not (an error, if any, is dropped: the
   * extraction is failing already), applies the deferred modes (deepest first) and closes the
   * directories kept open.
   */
  close(): void {
    try {
      this.finish();
    } catch {
      // What was staged is removed; the extraction's own error is the one reported.
    }
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

  /** Opens directory `name` of `here` (the path `prefix`), staging it when it is missing. */
  #step(here: DirectoryHandle, name: string, entry: string, prefix: string): DirectoryHandle {
    const staging = this.#staging;
    if (staging?.key === prefix) {
      return openArchiveDirectory(here, staging.stagedName, entry, prefix);
    }
    try {
      return here.openChild(name);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw directoryOpenError(error, here, name, entry, prefix);
    }
    // Below the staged directory, or above it (made again after it vanished): made in place.
    if (staging !== undefined) {
      try {
        mkdirSync(here.child(name));
      } catch (error) {
        if (errnoOf(error) !== 'EEXIST') throw error;
      }
      return openArchiveDirectory(here, name, entry, prefix);
    }
    return this.#stage(here, name, prefix, entry);
  }

  /** Makes the new directory `name` of `parent` under a temporary name; returns it open. */
  #stage(parent: DirectoryHandle, name: string, key: string, entry: string): DirectoryHandle {
    const stagedName = `.archive.${randomBytes(6).toString('hex')}${TEMPORARY_FILE_SUFFIX}`;
    mkdirSync(parent.child(stagedName));
    const path = this.#onTemporaryFile ? `${parent.realPath()}/${stagedName}` : undefined;
    if (path !== undefined) this.#onTemporaryFile?.('created', path);
    const staging: Staging = { key, parent, name, stagedName, path, modes: [] };
    let handle: DirectoryHandle | undefined;
    try {
      handle = openArchiveDirectory(parent, stagedName, entry, key);
      staging.parent = parent.openChild('.');
    } catch (error) {
      handle?.close();
      this.#discard(staging);
      throw error;
    }
    this.#staging = staging;
    return handle;
  }

  /** Renames the staged directory to its final name, or merges it; removes it when that fails. */
  #publish(): void {
    const staging = this.#staging as Staging;
    this.#staging = undefined;
    this.#dropCached();
    try {
      const merged = publishStagedDirectory({
        parent: staging.parent,
        stagedName: staging.stagedName,
        name: staging.name,
        key: staging.key,
      });
      // A merged directory kept the modes of the one already there: set them again.
      if (merged) this.#deferredModes.push(...staging.modes);
      if (staging.path !== undefined) this.#onTemporaryFile?.('gone', staging.path);
    } catch (error) {
      this.#discard(staging);
      throw error;
    } finally {
      staging.parent.close();
    }
  }

  /** Removes what is left of a staged directory. */
  #discard(staging: Staging): void {
    try {
      rmSync(staging.parent.child(staging.stagedName), { recursive: true, force: true });
    } catch {
      // Nothing more can be done; the sweep of temporary files is the last resort.
    }
    if (staging.path !== undefined) this.#onTemporaryFile?.('gone', staging.path);
  }

  #dropCached(): void {
    this.#cached?.handle.close();
    this.#cached = undefined;
  }
}

/** True when the path `key` is `top` or lies below it. */
function isWithin(key: string, top: string): boolean {
  return key === top || (key.startsWith(top) && key.charCodeAt(top.length) === 0x2f);
}

function chmodHandle(handle: DirectoryHandle, mode: number): void {
  if (handle.fd >= 0) fchmodSync(handle.fd, mode & 0o777);
  else chmodSync(handle.ref || '/', mode & 0o777);
}
