import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  createWriteStream,
  fchmodSync,
  openSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DirectoryHandle } from './directory-handle.js';

/** Suffix of every temporary file {@link writeStreamAtomic} creates. */
export const TEMPORARY_FILE_SUFFIX = '.part';

/** Matches the names {@link writeStreamAtomic} gives its temporary files. */
export const TEMPORARY_FILE_PATTERN = /^\..*\.[0-9a-f]{12}\.part$/s;

/** Bytes of the destination's name kept in a temporary name (a name may be 255 bytes long). */
const KEPT_NAME_BYTES = 200;

/** Options of {@link writeStreamAtomic}. */
export interface WriteStreamAtomicOptions {
  /** The bytes to write. */
  source: Readable;
  /** The directory the file goes in (see `locateFileForWrite`). */
  directory: DirectoryHandle;
  /** The file's name in `directory`. */
  name: string;
  /**
   * Permission bits of the new file (not subject to the umask); default `0o666` less the umask.
   * With a mode, the file is created private (`0o600`) and given the mode before any byte lands.
   */
  mode?: number | undefined;
  /** Bytes the file stream buffers before the source has to wait; default Node's. */
  highWaterMark?: number | undefined;
  /** Flush the file to disk (fsync) before the rename, so it survives a crash; default false. */
  durable?: boolean | undefined;
  /** Runs once every byte is on disk, before the rename; throwing discards the file. */
  verify?: (() => void) | undefined;
  /** Told the temporary file's name when it is created and when it is gone (renamed or removed). */
  onTemporaryFile?: ((event: 'created' | 'gone', name: string) => void) | undefined;
  /**
   * Told the error when the file itself cannot be written (created, written or renamed), before
   * it is rethrown; so a caller can tell it from a failing `source`, whose error is rethrown as is.
   */
  onWriteError?: ((error: unknown) => void) | undefined;
}

/**
 * Streams `source` into a temporary file in `directory` (memory stays flat whatever the size),
 * then renames it over `name` in that same directory. Both names are looked up in the open
 * directory, so the file lands where the path was checked even if the path changes meanwhile.
 * Readers never see a half-written file: on any failure (the source erroring or being destroyed,
 * `verify` throwing, the disk filling) the temporary file is removed, `name` is left as it was
 * and the error is rethrown. Resolves to the bytes written.
 */
export async function writeStreamAtomic(options: WriteStreamAtomicOptions): Promise<number> {
  const { source, directory, name, mode, highWaterMark, durable } = options;
  const { verify, onTemporaryFile, onWriteError } = options;
  /** Runs a step on the file, telling `onWriteError` when it fails. */
  const fileStep = <T>(step: () => T): T => {
    try {
      return step();
    } catch (error) {
      onWriteError?.(error);
      throw error;
    }
  };
  const temporary = `.${truncateUtf8(name, KEPT_NAME_BYTES)}.${randomBytes(6).toString('hex')}${TEMPORARY_FILE_SUFFIX}`;
  // O_EXCL: never reuse a file someone else created under the same name.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const fd = fileStep(() =>
    openSync(directory.child(temporary), flags, mode === undefined ? 0o666 : 0o600),
  );
  onTemporaryFile?.('created', temporary);
  let renamed = false;
  try {
    try {
      if (mode !== undefined) fileStep(() => fchmodSync(fd, mode));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    // The stream owns the descriptor from here: it closes it when done, also on error.
    const output = createWriteStream('', {
      fd,
      flush: durable === true,
      ...(highWaterMark && { highWaterMark }),
    });
    // The file's own failure shows here before `pipeline` settles; a source's comes later.
    let writeError: unknown;
    output.once('error', (error) => {
      writeError = error;
    });
    try {
      await pipeline(source, output);
    } catch (error) {
      if (writeError !== undefined) onWriteError?.(writeError);
      throw error;
    } finally {
      if (!output.closed)
        await new Promise<void>((resolve) => output.once('close', () => resolve()));
    }
    verify?.();
    fileStep(() => renameSync(directory.child(temporary), directory.child(name)));
    renamed = true;
    return output.bytesWritten;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(directory.child(temporary));
      } catch {
        // Already gone.
      }
    }
    onTemporaryFile?.('gone', temporary);
  }
}

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, whole characters only. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let result = '';
  let bytes = 0;
  for (const character of text) {
    bytes += Buffer.byteLength(character);
    if (bytes > maxBytes) break;
    result += character;
  }
  return result;
}
