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
  const bytes = utf8Length(name, MAX_ARCHIVE_PATH_BYTES);
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
    if (utf8Length(part, MAX_ARCHIVE_NAME_BYTES) > MAX_ARCHIVE_NAME_BYTES) {
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

/**
 * The UTF-8 length of `text`, counted only when it could exceed `limit`: a UTF-16 unit takes at
 * most 3 bytes, so a short string is within it whatever it holds (then its `length` stands in).
 */
function utf8Length(text: string, limit: number): number {
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text);
}
