import { lstatSync, type Stats } from 'node:fs';
import type { DirectoryHandle } from './directory-handle.js';
import { errnoOf, type PathSubject, pathError, translateWalkError } from './path-error.js';
import type { PathWalker, WalkEnd } from './path-walker.js';

/** Where a file is to be written: its directory, open, and its name there. */
export interface FileDestination {
  /** The directory that will hold the file; the caller closes it. */
  parent: DirectoryHandle;
  /** The file's name in `parent`. */
  name: string;
  /** Permission bits of the regular file it replaces, if one is there. */
  mode: number | undefined;
}

/**
 * Finds where a client path is to be written, creating missing parent directories (unless
 * `createParents` is false: then a missing one is `NOT_FOUND`): a symbolic
 * link is followed to its target (which the write then replaces, as `open("wb")` writes through
 * it), within the working directory when confined. Only a regular file may be replaced.
 *
 * Errors (`WorkspaceError`, `details.reason`): `INVALID_ARGUMENT` `is-directory` (also for a path
 * ending in `/`), `not-regular-file` (devices, FIFOs, sockets are never replaced),
 * `parent-not-directory`; `FORBIDDEN` `outside` / `permission`; `NOT_FOUND` for a dangling link
 * whose target's directory cannot be created.
 */
export function locateFileForWrite(
  walker: PathWalker,
  input: string,
  field: string,
  options: { createParents?: boolean | undefined } = {},
): FileDestination {
  const walk = walker.begin(input, field, { createParents: options.createParents ?? true });
  if (input.endsWith('/')) {
    throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory');
  }
  let end: WalkEnd = walker.walk(walk);
  try {
    for (;;) {
      const { parent, name } = end;
      if (name === undefined) {
        throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory');
      }
      const stats = lstatOrUndefined(parent, name, walk);
      if (stats?.isSymbolicLink()) {
        const next = walker.follow(end, parent.readLink(name) ?? '', walk);
        parent.close();
        end = next;
        continue;
      }
      if (stats?.isDirectory()) {
        throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory');
      }
      if (stats && !stats.isFile()) {
        throw pathError('INVALID_ARGUMENT', walk, 'is not a regular file', 'not-regular-file');
      }
      walker.assertInside(parent.realPath(), walk);
      return { parent, name, mode: stats ? stats.mode & 0o777 : undefined };
    }
  } catch (error) {
    end.parent.close();
    throw error;
  }
}

/** The entry's status, not following a link; `undefined` when there is none. */
function lstatOrUndefined(
  parent: DirectoryHandle,
  name: string,
  subject: PathSubject,
): Stats | undefined {
  try {
    return lstatSync(parent.child(name));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw translateWalkError(error, subject);
  }
}
