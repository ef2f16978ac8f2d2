import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { DirectoryHandle } from './directory-handle.js';
import { errnoOf, type PathSubject, pathError, translateWalkError } from './path-error.js';

/** Most symbolic links one walk follows (Linux's limit too). */
export const MAX_SYMLINK_HOPS = 40;

/** Options of {@link PathWalker.open}. */
export interface PathWalkerOptions {
  /** Absolute directory relative paths resolve against; must exist. */
  workingDir: string;
  /**
   * Keep every walk beneath `workingDir`: `..` above it, an absolute path elsewhere and a
   * symbolic link leading out are `FORBIDDEN`. Without it, walks start at `/`.
   */
  confine: boolean;
}

/** Where a walk ended: an open directory and the last name in it. */
export interface WalkEnd {
  /** The directory holding the entry; the caller closes it. */
  parent: DirectoryHandle;
  /** The entry's name, or `undefined` when the path names `parent` itself (`.`, `/`, `a/`). */
  name: string | undefined;
}

/** A walk in progress: what it resolves and how many links it followed. */
export interface Walk extends PathSubject {
  /** Create missing directories on the way. */
  createParents: boolean;
  /**
   * At a missing directory, end the walk there: `name` is then the rest of the path (several
   * components joined with `/`, none of them `..`), for paths that may have been deleted.
   */
  stopAtMissing: boolean;
  hops: number;
}

/**
 * Resolves client paths one component at a time from an open directory, the user-space
 * equivalent of `openat2(RESOLVE_BENEATH)`: each directory is opened without following a
 * symbolic link, a link met on the way is read and its target walked in turn (from the root when
 * absolute), and `..` is the kernel's parent of the directory reached. So with `confine` no path,
 * link or `..` leads outside `workingDir`, and a component swapped for a link after it was
 * checked cannot either: each name is looked up in a directory already open (see
 * {@link DirectoryHandle}). Directories moved out of the tree mid-walk are caught by
 * {@link PathWalker.assertInside} on what was finally opened.
 *
 * Errors are `WorkspaceError`s naming the field, with `details.reason`: `FORBIDDEN` (outside,
 * permission denied), `NOT_FOUND`, `INVALID_ARGUMENT` (a parent that is not a directory, a loop
 * of links, a name too long, a NUL byte).
 */
export class PathWalker {
  readonly workingDir: string;
  readonly confine: boolean;
  /** The confinement root (`workingDir`) or `/`. */
  readonly #root: DirectoryHandle;
  /** Spellings of the root an absolute path may start with: as given and its real path. */
  readonly #rootAliases: string[];
  readonly #rootRealPath: string;

  private constructor(workingDir: string, confine: boolean, realPath: string) {
    this.workingDir = workingDir;
    this.confine = confine;
    this.#rootRealPath = realPath;
    this.#rootAliases = [...new Set([workingDir, realPath])];
    this.#root = DirectoryHandle.open(confine ? realPath : '/');
  }

  /** Real path of `workingDir` when the walker was opened (what confinement compares with). */
  get rootRealPath(): string {
    return this.#rootRealPath;
  }

  /** Opens the root directory of the walks. Throws the file-system error if it cannot. */
  static open(options: PathWalkerOptions): PathWalker {
    const workingDir = path.resolve(options.workingDir);
    return new PathWalker(workingDir, options.confine, realpathSync(workingDir));
  }

  /** Starts a walk of `input` (absolute, or relative to `workingDir`). */
  begin(
    input: string,
    field: string,
    options: { createParents?: boolean | undefined; stopAtMissing?: boolean | undefined } = {},
  ): Walk {
    return {
      input,
      field,
      createParents: options.createParents === true,
      stopAtMissing: options.stopAtMissing === true,
      hops: 0,
    };
  }

  /**
   * Walks to the last component of `walk.input`, entering every directory before it (creating
   * missing ones with `createParents`). The last component is not looked at: callers open it
   * without following links and, when it is one, call {@link PathWalker.follow}.
   */
  walk(walk: Walk): WalkEnd {
    if (walk.input.includes('\0')) {
      throw pathError('INVALID_ARGUMENT', walk, 'must not contain NUL bytes', 'nul-byte');
    }
    return this.#walk(this.#root.openChild('.'), this.#rootComponents(walk.input, walk), walk);
  }

  /** Continues a walk through the symbolic link at `end` whose target is `target`. */
  follow(end: WalkEnd, target: string, walk: Walk): WalkEnd {
    this.#countHop(walk);
    const absolute = path.isAbsolute(target);
    const start = absolute ? this.#root.openChild('.') : end.parent.openChild('.');
    const queue = absolute ? this.#rootComponents(target, walk) : components(target);
    return this.#walk(start, queue, walk);
  }

  /** Throws `FORBIDDEN` unless `realPath` (of something opened) lies beneath the root. */
  assertInside(realPath: string, subject: PathSubject): void {
    if (!this.confine) return;
    if (realPath === this.#rootRealPath || realPath.startsWith(`${this.#rootRealPath}/`)) return;
    throw outside(subject);
  }

  /** Closes the root directory. */
  close(): void {
    this.#root.close();
  }

  /** Components of an absolute or `workingDir`-relative path, relative to the walk's root. */
  #rootComponents(input: string, subject: PathSubject): string[] {
    if (!this.confine) {
      return components(path.isAbsolute(input) ? input : `${this.workingDir}/${input}`);
    }
    if (!path.isAbsolute(input)) return components(input);
    for (const alias of this.#rootAliases) {
      if (input === alias) return [];
      if (input.startsWith(`${alias}/`)) return components(input.slice(alias.length));
    }
    throw outside(subject);
  }

  /** Walks `queue` from `current` (which it owns) up to its last component. */
  #walk(current: DirectoryHandle, queue: string[], walk: Walk): WalkEnd {
    let here = current;
    try {
      while (queue.length > 0) {
        const name = queue.shift() as string;
        if (name === '.') continue;
        if (name === '..') {
          here = this.#replace(here, this.#parentOf(here, walk));
          continue;
        }
        if (queue.length === 0) return { parent: here, name };
        const next = this.#enter(here, name, walk);
        if (next === undefined) {
          const rest = [name, ...queue].filter((part) => part !== '.');
          if (rest.includes('..')) {
            throw pathError('NOT_FOUND', walk, 'does not exist', 'not-found');
          }
          return { parent: here, name: rest.join('/') };
        }
        if (typeof next !== 'string') {
          here = this.#replace(here, next);
          continue;
        }
        if (path.isAbsolute(next)) {
          here = this.#replace(here, this.#root.openChild('.'));
          queue.unshift(...this.#rootComponents(next, walk));
        } else {
          queue.unshift(...components(next));
        }
      }
      return { parent: here, name: undefined };
    } catch (error) {
      here.close();
      throw error;
    }
  }

  #replace(old: DirectoryHandle, next: DirectoryHandle): DirectoryHandle {
    old.close();
    return next;
  }

  /** The parent of `here`; at the root, `FORBIDDEN` when confined (`/..` is `/` otherwise). */
  #parentOf(here: DirectoryHandle, subject: PathSubject): DirectoryHandle {
    if (here.sameAs(this.#root)) {
      if (this.confine) throw outside(subject);
      return here.openChild('.');
    }
    return here.openChild('..');
  }

  /**
   * Opens directory `name` of `parent`, or returns the target of the link it is; `undefined`
   * when it is missing and the walk stops there.
   */
  #enter(parent: DirectoryHandle, name: string, walk: Walk): DirectoryHandle | string | undefined {
    for (;;) {
      try {
        return parent.openChild(name);
      } catch (error) {
        const code = errnoOf(error);
        if (code === 'ENOENT' && walk.createParents) {
          createDirectory(parent, name, walk);
          continue;
        }
        if (code === 'ENOENT' && walk.stopAtMissing) return undefined;
        if (code !== 'ELOOP' && code !== 'ENOTDIR') throw translateWalkError(error, walk);
        const target = parent.readLink(name);
        if (target === undefined) {
          throw pathError(
            'INVALID_ARGUMENT',
            walk,
            'has a parent that is not a directory',
            'parent-not-directory',
          );
        }
        this.#countHop(walk);
        return target;
      }
    }
  }

  #countHop(walk: Walk): void {
    walk.hops += 1;
    if (walk.hops > MAX_SYMLINK_HOPS) {
      throw pathError(
        'INVALID_ARGUMENT',
        walk,
        'has too many levels of symbolic links',
        'symlink-loop',
      );
    }
  }
}

/** The components of a path; a trailing `/` adds a final `.` (the path names a directory). */
function components(input: string): string[] {
  const parts = input.split('/').filter((part) => part !== '');
  if (input.endsWith('/') && parts.length > 0) parts.push('.');
  return parts;
}

function createDirectory(parent: DirectoryHandle, name: string, walk: Walk): void {
  try {
    mkdirSync(parent.child(name));
  } catch (error) {
    if (errnoOf(error) !== 'EEXIST') throw translateWalkError(error, walk);
  }
}

function outside(subject: PathSubject) {
  return pathError('FORBIDDEN', subject, 'is outside the working directory', 'outside');
}
