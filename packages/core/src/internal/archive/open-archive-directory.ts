import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import { archiveEntryError } from './archive-entry-error.js';

/**
 * Opens directory `name` of `parent` without following a link, refusing a link or anything else
 * in the way, naming `entry` and the path `prefix`.
 */
export function openArchiveDirectory(
  parent: DirectoryHandle,
  name: string,
  entry: string,
  prefix: string,
): DirectoryHandle {
  try {
    return parent.openChild(name);
  } catch (error) {
    throw directoryOpenError(error, parent, name, entry, prefix);
  }
}

/** The archive error for a failed directory open (a link or a non-directory), else `error`. */
export function directoryOpenError(
  error: unknown,
  parent: DirectoryHandle,
  name: string,
  entry: string,
  prefix: string,
): unknown {
  const code = errnoOf(error);
  if (code !== 'ELOOP' && code !== 'ENOTDIR') return error;
  if (parent.readLink(name) !== undefined) {
    return archiveEntryError(
      entry,
      `would be written through the symbolic link ${JSON.stringify(prefix)}`,
      'through-symlink',
    );
  }
  return archiveEntryError(
    entry,
    `needs ${JSON.stringify(prefix)} to be a directory, and it is not`,
    'not-directory',
  );
}
