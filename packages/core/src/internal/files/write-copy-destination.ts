import path from 'node:path';
import type { Readable } from 'node:stream';
import { DirectoryHandle } from '../../fs/directory-handle.js';
import { writeStreamAtomic } from '../../fs/write-stream-atomic.js';
import { CopyFailure } from './copy-failure.js';
import { type CopyPaths, describeCopyError } from './describe-copy-error.js';

/** Input of {@link writeCopyDestination}. */
export interface WriteCopyDestinationOptions {
  /** The bytes to write. */
  source: Readable;
  /** The copy; the file goes to `destinationPath`, whose directory exists. */
  paths: CopyPaths;
  /** Permission bits of the file; default `0o666` less the umask. */
  mode?: number | undefined;
  /** Bytes the file stream buffers before the source has to wait; default Node's. */
  highWaterMark?: number | undefined;
  /** Runs once every byte is on disk, before the rename; throwing discards the file. */
  verify?: (() => void) | undefined;
}

/**
 * Streams `source` to the destination of a copy on this machine with `writeStreamAtomic` (a
 * temporary file renamed over it; the path is not confined). Returns the bytes written. A file
 * that cannot be written is a {@link CopyFailure}; a failing `source` rejects with its own error.
 */
export async function writeCopyDestination({
  source,
  paths,
  mode,
  highWaterMark,
  verify,
}: WriteCopyDestinationOptions): Promise<number> {
  let writeError: unknown;
  try {
    return await writeStreamAtomic({
      source,
      directory: DirectoryHandle.byPath(path.dirname(paths.destinationPath)),
      name: path.basename(paths.destinationPath),
      mode,
      highWaterMark,
      verify,
      onWriteError: (error) => {
        writeError = error;
      },
    });
  } catch (error) {
    if (writeError === undefined) throw error;
    throw new CopyFailure(describeCopyError(writeError, 'write-destination', paths), {
      cause: writeError,
    });
  }
}
