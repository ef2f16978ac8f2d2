import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { openRegularFile, type PathWalker } from '@agent-workspace/core/internal';
import { pathHttpError } from './path-http-error.js';

/** Read size of downloads: fewer, larger writes to the socket. */
const READ_CHUNK_BYTES = 256 * 1024;

/** A file opened for download. */
export interface Download {
  /**
   * Its bytes, read lazily; destroying the stream closes the file. It ends with an error when
   * the file shrank below `size` meanwhile, so the response is cut rather than short.
   */
  stream: Readable;
  /** Its size in bytes when opened; the stream never yields more. */
  size: number;
}

/**
 * Opens the regular file a client path names for streaming (race-free and confined when the
 * server is; see `openRegularFile`), with OpenHands' errors: 404 `File not found`, 400 `Path is
 * not a file` (directories, FIFOs, devices, sockets), 403 for permission and confinement.
 */
export function openDownload(paths: PathWalker, input: string): Download {
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(paths, input, 'path');
  } catch (error) {
    throw pathHttpError(error, 'download');
  }
  const { fd, stats } = opened;
  const size = stats.size;
  if (size === 0) {
    createReadStream('', { fd }).destroy();
    return { stream: Readable.from([]), size: 0 };
  }
  // `end` caps the stream at the size announced in Content-Length, should the file grow.
  // A numeric fd keeps the callback read path, markedly faster than FileHandle's promise reads.
  const file = createReadStream('', {
    fd,
    start: 0,
    end: size - 1,
    highWaterMark: READ_CHUNK_BYTES,
  });
  return { stream: Readable.from(exactly(file, size), { objectMode: false }), size };
}

/** The chunks of `source`, failing at its end if it gave fewer than `size` bytes. */
async function* exactly(source: Readable, size: number): AsyncGenerator<Buffer> {
  let sent = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    sent += chunk.length;
    yield chunk;
  }
  if (sent < size) throw new Error(`the file shrank to ${sent} of ${size} bytes while being sent`);
}
