import { randomBytes } from 'node:crypto';
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { MAX_ARCHIVE_PATH_BYTES } from '@agent-workspace/protocol/constants';
import { errnoOf } from '../../fs/path-error.js';
import type { ArchiveDirectories } from './archive-directories.js';
import { archiveEntryError } from './archive-entry-error.js';
import { refuseReplacing } from './refuse-replacing.js';

/**
 * Creates (or replaces) the symbolic link `parts` (below the extraction root of `directories`)
 * with target `target`, atomically by rename. The target is not checked: nothing here follows
 * links. Refuses, naming `entry`, a NUL byte, an empty or over-long target, and a directory,
 * FIFO, device or socket in the way (`refuseReplacing`).
 */
export function createArchiveSymlink(
  directories: ArchiveDirectories,
  parts: readonly string[],
  target: string,
  entry: string,
): void {
  if (target.includes('\0'))
    throw archiveEntryError(entry, 'has a NUL byte in its target', 'nul-byte');
  if (target.length === 0) throw archiveEntryError(entry, 'is a link with no target', 'empty-name');
  if (Buffer.byteLength(target) > MAX_ARCHIVE_PATH_BYTES) {
    throw archiveEntryError(
      entry,
      `has a link target over ${MAX_ARCHIVE_PATH_BYTES} bytes`,
      'path-too-long',
    );
  }
  const parent = directories.open(parts.slice(0, -1), entry);
  const name = parts[parts.length - 1] as string;
  refuseReplacing(parent, name, entry);
  const temporary = `.${randomBytes(8).toString('hex')}.link`;
  symlinkSync(target, parent.child(temporary));
  try {
    renameSync(parent.child(temporary), parent.child(name));
  } catch (error) {
    unlinkSync(parent.child(temporary));
    // The rename met a directory of that name.
    if (errnoOf(error) === 'EISDIR') {
      throw archiveEntryError(entry, 'would replace a directory', 'is-directory');
    }
    throw error;
  }
}
