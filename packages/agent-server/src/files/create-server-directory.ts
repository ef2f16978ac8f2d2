import { mkdirSync } from 'node:fs';
import { openDirectory, type PathWalker, pathError } from '@agent-workspace/core/internal';

/**
 * Creates the directory `input` and its missing parents through the server's path walker (each
 * parent made in the directory already open, so a component swapped for a link cannot redirect
 * it; confined when the server is), then opens what is there to check it is a directory — an
 * existing one (or a link to one within the confinement) is fine, its contents untouched.
 *
 * @throws WorkspaceError path errors: `not-directory` / `parent-not-directory` (a file in the
 * way), `permission`, `outside`, `name-too-long`, ...
 */
export function createServerDirectory(paths: PathWalker, input: string, field: string): void {
  const walk = paths.begin(input, field, { createParents: true });
  const end = paths.walk(walk);
  try {
    if (end.name !== undefined) {
      try {
        mkdirSync(end.parent.child(end.name), { mode: 0o777 });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EPERM') {
          throw pathError(
            'FORBIDDEN',
            walk,
            'cannot be created (permission denied)',
            'permission',
            error,
          );
        }
        if (code === 'ENAMETOOLONG') {
          throw pathError(
            'INVALID_ARGUMENT',
            walk,
            'has a name that is too long',
            'name-too-long',
            error,
          );
        }
        if (code !== 'EEXIST') throw error;
      }
    }
  } finally {
    end.parent.close();
  }
  openDirectory(paths, input, field).close();
}
