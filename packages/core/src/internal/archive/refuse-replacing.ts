import { lstatSync, type Stats } from 'node:fs';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { archiveEntryError } from './archive-entry-error.js';

/**
 * Refuses, naming `entry`, to replace the entry `name` of `parent` with a file or link unless it
 * is missing, a regular file or a symbolic link (which is replaced, never followed): a directory
 * is `is-directory`; a FIFO, device or socket is `replaces-special-file`, so an extraction never
 * replaces one (as uploads never do). Nothing is opened: the entry is looked at with `lstat`.
 */
export function refuseReplacing(parent: DirectoryHandle, name: string, entry: string): void {
  const stats = lstatSync(parent.child(name), { throwIfNoEntry: false });
  if (stats === undefined || stats.isFile() || stats.isSymbolicLink()) return;
  if (stats.isDirectory()) {
    throw archiveEntryError(entry, 'would replace a directory', 'is-directory');
  }
  throw archiveEntryError(
    entry,
    `would replace a ${specialKind(stats)}, which is refused: only regular files and links are replaced`,
    'replaces-special-file',
  );
}

function specialKind(stats: Stats): string {
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  return 'special file';
}
