import { close, constants, createReadStream, fstat, open } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { HttpError } from '../app/http-error.js';
import { permissionDenied } from './permission-denied.js';

const openFile = promisify(open);
const statFile = promisify(fstat);
const closeFile = promisify(close);

/** Read size of downloads: fewer, larger writes to the socket. */
const READ_CHUNK_BYTES = 256 * 1024;

/** A file opened for download. */
export interface Download {
  /** Its bytes, read lazily; destroying the stream closes the file. */
  stream: Readable;
  /** Its size in bytes when opened; the stream never yields more. */
  size: number;
}

/**
 * Opens a regular file for streaming with OpenHands' errors: 404 `File not found`, 400
 * `Path is not a file` (directories, FIFOs, devices: opened non-blocking so a FIFO cannot hang
 * the request), 403 `Permission denied: <path>`.
 */
export async function openDownload(target: string): Promise<Download> {
  let fd: number;
  try {
    fd = await openFile(target, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new HttpError(404, 'File not found');
    throw permissionDenied(error, target);
  }
  const stats = await statFile(fd).catch(async (error: unknown) => {
    await closeFile(fd);
    throw error;
  });
  if (!stats.isFile() || stats.size === 0) {
    await closeFile(fd);
    if (!stats.isFile()) throw new HttpError(400, 'Path is not a file');
    return { stream: Readable.from([]), size: 0 };
  }
  // `end` caps the stream at the size announced in Content-Length, should the file grow.
  // A numeric fd keeps the callback read path, markedly faster than FileHandle's promise reads.
  const stream = createReadStream('', {
    fd,
    start: 0,
    end: stats.size - 1,
    highWaterMark: READ_CHUNK_BYTES,
  });
  return { stream, size: stats.size };
}
