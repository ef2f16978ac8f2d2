import { closeSync, constants, fstatSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { PROC_FD_WALKS } from './directory-handle.js';
import { errnoOf, pathError, translateWalkError } from './path-error.js';
import type { PathWalker, WalkEnd } from './path-walker.js';

/** Never follow the last component, never block on a FIFO or device. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A regular file opened for reading. */
export interface OpenedFile {
  /** Its descriptor; the caller closes it (or hands it to a stream that does). */
  fd: number;
  /** Its status when opened. */
  stats: Stats;
}

/**
 * Opens the regular file a client path names, following symbolic links the way
 * {@link PathWalker} does (within the working directory when confined).
 *
 * Errors (`WorkspaceError`, `details.reason`): `NOT_FOUND`; `INVALID_ARGUMENT` `is-directory` or
 * `not-regular-file` (FIFOs, devices and sockets are opened non-blocking and refused, so none can
 * hang or feed the caller); when confined, `FORBIDDEN` `hard-link` for a file with more than one
 * name (another name may lie outside) and `outside` for a file that left the tree mid-walk.
 */
export function openRegularFile(walker: PathWalker, input: string, field: string): OpenedFile {
  const walk = walker.begin(input, field);
  let end: WalkEnd = walker.walk(walk);
  try {
    for (;;) {
      if (end.name === undefined) {
        throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory');
      }
      let fd: number;
      try {
        fd = openSync(end.parent.child(end.name), FILE_FLAGS);
      } catch (error) {
        const target = errnoOf(error) === 'ELOOP' ? end.parent.readLink(end.name) : undefined;
        if (target === undefined) throw translateWalkError(error, walk);
        const next = walker.follow(end, target, walk);
        end.parent.close();
        end = next;
        continue;
      }
      try {
        const stats = fstatSync(fd);
        if (stats.isDirectory()) {
          throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory');
        }
        if (!stats.isFile()) {
          throw pathError('INVALID_ARGUMENT', walk, 'is not a regular file', 'not-regular-file');
        }
        if (walker.confine) {
          if (stats.nlink > 1) {
            throw pathError(
              'FORBIDDEN',
              walk,
              `is a hard link (${stats.nlink} names); a confined server refuses files with more than one name`,
              'hard-link',
            );
          }
          if (PROC_FD_WALKS) walker.assertInside(readlinkSync(`/proc/self/fd/${fd}`), walk);
        }
        return { fd, stats };
      } catch (error) {
        closeSync(fd);
        throw error;
      }
    }
  } finally {
    end.parent.close();
  }
}
