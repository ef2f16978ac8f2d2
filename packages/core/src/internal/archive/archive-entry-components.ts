import {
  MAX_ARCHIVE_DEPTH,
  MAX_ARCHIVE_NAME_BYTES,
  MAX_ARCHIVE_PATH_BYTES,
} from '@agent-workspace/protocol/constants';
import { archiveEntryError } from './archive-entry-error.js';

/**
 * The components of an archive entry's name, relative to the extraction directory (`.` parts
 * dropped, so `./a/b/` is `['a', 'b']` and `./` is `[]`). Refuses, naming the entry: absolute
 * names, `..` anywhere, NUL bytes, names over `MAX_ARCHIVE_PATH_BYTES`, components over
 * `MAX_ARCHIVE_NAME_BYTES` and more than `MAX_ARCHIVE_DEPTH` components.
 */
export function archiveEntryComponents(name: string): string[] {
  if (name.includes('\0')) throw archiveEntryError(name, 'contains a NUL byte', 'nul-byte');
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_ARCHIVE_PATH_BYTES) {
    throw archiveEntryError(
      name,
      `has a name of ${bytes} bytes; the limit is ${MAX_ARCHIVE_PATH_BYTES}`,
      'path-too-long',
    );
  }
  if (name.startsWith('/')) throw archiveEntryError(name, 'has an absolute name', 'absolute');
  const parts = name.split('/').filter((part) => part !== '' && part !== '.');
  for (const part of parts) {
    if (part === '..') throw archiveEntryError(name, 'has ".." in its name', 'dot-dot');
    if (Buffer.byteLength(part) > MAX_ARCHIVE_NAME_BYTES) {
      throw archiveEntryError(
        name,
        `has a component over ${MAX_ARCHIVE_NAME_BYTES} bytes`,
        'name-too-long',
      );
    }
  }
  if (parts.length > MAX_ARCHIVE_DEPTH) {
    throw archiveEntryError(
      name,
      `is ${parts.length} levels deep; the limit is ${MAX_ARCHIVE_DEPTH}`,
      'too-deep',
    );
  }
  return parts;
}
