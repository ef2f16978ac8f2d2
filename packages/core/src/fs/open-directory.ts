import type { DirectoryHandle } from './directory-handle.js';
import { errnoOf, pathError, translateWalkError } from './path-error.js';
import type { PathWalker, WalkEnd } from './path-walker.js';

/**
 * Opens the directory a client path names, following symbolic links the way
 * {@link PathWalker} does (within the working directory when confined); the caller closes it.
 * A command's cwd opened this way can be handed to a child process as `/proc/self/fd/<fd>`, so
 * the directory checked is the directory used.
 *
 * Errors: `NOT_FOUND`, `INVALID_ARGUMENT` (`not-directory`, `parent-not-directory`, ...),
 * `FORBIDDEN` (outside when confined, permission denied).
 */
export function openDirectory(walker: PathWalker, input: string, field: string): DirectoryHandle {
  const walk = walker.begin(input, field);
  let end: WalkEnd = walker.walk(walk);
  for (;;) {
    if (end.name === undefined) break;
    let opened: DirectoryHandle;
    try {
      opened = end.parent.openChild(end.name);
    } catch (error) {
      const code = errnoOf(error);
      const target =
        code === 'ELOOP' || code === 'ENOTDIR' ? end.parent.readLink(end.name) : undefined;
      if (target === undefined) {
        end.parent.close();
        if (code === 'ENOTDIR') {
          throw pathError('INVALID_ARGUMENT', walk, 'is not a directory', 'not-directory', error);
        }
        throw translateWalkError(error, walk);
      }
      let next: WalkEnd;
      try {
        next = walker.follow(end, target, walk);
      } finally {
        end.parent.close();
      }
      end = next;
      continue;
    }
    end.parent.close();
    end = { parent: opened, name: undefined };
  }
  try {
    walker.assertInside(end.parent.realPath(), walk);
  } catch (error) {
    end.parent.close();
    throw error;
  }
  return end.parent;
}
