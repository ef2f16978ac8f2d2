import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import { TEMPORARY_FILE_PATTERN } from '../../fs/write-stream-atomic.js';

/**
 * Removes a temporary entry a crashed process left: a temporary file (`writeStreamAtomic`) or a
 * staged directory of an extraction (`.archive.<hex>.part`, with everything in it). `file` must
 * be an absolute path whose last component has a temporary name (anything else is left alone,
 * false). Returns true when it removed something, false when it was not there (another sweeper
 * removed it meanwhile, say) or could not be reached without following a link.
 *
 * Race-free against links swapped in meanwhile: the parents are opened from `/` one component at
 * a time with `O_NOFOLLOW | O_DIRECTORY` (`DirectoryHandle`), and every later name is looked up
 * relative to the descriptor of the directory that holds it (`/proc/self/fd/<fd>/<name>`), so a
 * component replaced by a link after it was opened no longer matters; a link met on the way is
 * never followed (the entry is then left where it is). `unlink` and `rmdir` never follow their
 * last component, so a link swapped in for the staged directory is itself removed, not its
 * target. `ENOENT` at any step means someone else removed it first, which is fine.
 */
export function removeTemporaryEntry(file: string): boolean {
  const name = path.basename(file);
  if (!path.isAbsolute(file) || !TEMPORARY_FILE_PATTERN.test(name)) return false;
  let parent: DirectoryHandle;
  try {
    parent = openWithoutLinks(path.dirname(file));
  } catch {
    // Gone, or a link (or a non-directory) in the way: nothing is followed.
    return false;
  }
  try {
    return removeEntry(parent, name);
  } finally {
    parent.close();
  }
}

/** Opens the absolute directory `dir` from `/`, one component at a time, following no link. */
function openWithoutLinks(dir: string): DirectoryHandle {
  const parts = dir.split('/').filter((part) => part !== '');
  if (parts.some((part) => part === '.' || part === '..')) {
    throw new Error(`not a plain path: ${dir}`);
  }
  const root = DirectoryHandle.open('/');
  try {
    return root.openDescendant(parts);
  } finally {
    root.close();
  }
}

/**
 * Removes the entry `name` of `parent`, a directory with all it holds; false when absent.
 * `retries` bounds the turns taken when the entry keeps changing between a directory and not.
 */
function removeEntry(parent: DirectoryHandle, name: string, retries = 3): boolean {
  try {
    unlinkSync(parent.child(name));
    return true;
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT') return false;
    // Linux says EISDIR for a directory, POSIX allows EPERM.
    if (code !== 'EISDIR' && code !== 'EPERM') throw error;
  }
  let directory: DirectoryHandle;
  try {
    directory = parent.openChild(name);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT') return false;
    // Replaced by a link or a file since the unlink: remove that instead, never following it.
    if ((code === 'ELOOP' || code === 'ENOTDIR') && retries > 0) {
      return removeEntry(parent, name, retries - 1);
    }
    throw error;
  }
  try {
    for (const child of readdirSync(directory.ref)) removeEntry(directory, child);
  } finally {
    directory.close();
  }
  try {
    rmdirSync(parent.child(name));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false;
    throw error;
  }
  return true;
}
