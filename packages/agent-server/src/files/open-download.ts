import { close, read } from 'node:fs';
import type { Writable } from 'node:stream';
import { openRegularFile, type PathWalker } from '@agent-workspace/core/internal';
import { pathHttpError } from './path-http-error.js';

/** Read size of downloads: fewer, larger writes to the socket. */
const READ_CHUNK_BYTES = 256 * 1024;

/** A file opened for download. */
export interface Download {
  /** Its size in bytes when opened; never more is sent. */
  size: number;
  /**
   * Writes its bytes to `output` (not ended) and closes the file. Two read buffers are reused
   * for the whole file, each refilled only once `output` has flushed it, so memory stays at two
   * chunks and the garbage collector has nothing to do. Rejects, sending no more, when `output`
   * fails or closes, and when the file shrank below `size` meanwhile, so that the caller cuts
   * the response rather than sending it short.
   */
  sendTo(output: Writable): Promise<void>;
  /** Closes the file without sending it (e.g. for `HEAD`). Idempotent. */
  close(): void;
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
  let closed = false;
  const closeFile = () => {
    if (closed) return;
    closed = true;
    close(fd, () => {});
  };
  return {
    size: stats.size,
    async sendTo(output) {
      try {
        await sendFile(fd, stats.size, output);
      } finally {
        closeFile();
      }
    },
    close: closeFile,
  };
}

/**
 * Copies `size` bytes of `fd` to `output` through two reused buffers: one is read into while
 * the other is being written (a numeric descriptor keeps the callback read path, markedly
 * faster than `FileHandle`'s promise reads).
 */
async function sendFile(fd: number, size: number, output: Writable): Promise<void> {
  if (size === 0) return;
  const chunkBytes = Math.min(READ_CHUNK_BYTES, size);
  const buffers = [Buffer.allocUnsafeSlow(chunkBytes), Buffer.allocUnsafeSlow(chunkBytes)];
  const writes: (Promise<void> | undefined)[] = [undefined, undefined];
  let position = 0;
  let index = 0;
  while (position < size) {
    // This buffer is free again once the write that last used it was flushed.
    await writes[index];
    const buffer = buffers[index]!;
    const length = await readAt(fd, buffer, Math.min(chunkBytes, size - position), position);
    if (length === 0) {
      throw new Error(`the file shrank to ${position} of ${size} bytes while being sent`);
    }
    position += length;
    const write = writeChunk(output, buffer.subarray(0, length));
    // Handled now, awaited later: failing while the other write is awaited is no crash (the
    // caller cuts the response on any failure, which fails a write still pending).
    write.catch(() => {});
    writes[index] = write;
    index = 1 - index;
  }
  await Promise.all(writes);
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, length, position, (error, bytesRead) =>
      error ? reject(error) : resolve(bytesRead),
    );
  });
}

/** Writes `chunk`; resolves once `output` flushed it, rejects when `output` fails or closes. */
function writeChunk(output: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (output.destroyed) {
      reject(new Error('the connection closed'));
      return;
    }
    const onClose = () => reject(new Error('the connection closed'));
    output.once('close', onClose);
    output.write(chunk, (error) => {
      output.off('close', onClose);
      if (error) reject(error);
      else resolve();
    });
  });
}
