import { WorkspaceError } from '@agent-workspace/core';
import {
  type FileDestination,
  locateFileForWrite,
  type PathWalker,
  writeStreamAtomic,
} from '@agent-workspace/core/internal';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../app/http-error.js';
import { pathHttpError } from './path-http-error.js';

/** Options of {@link receiveUpload}. */
export interface ReceiveUploadOptions {
  /** A `multipart/form-data` request whose part named `file` holds the bytes. */
  request: FastifyRequest;
  /** Resolves the destination (confined when the server is). */
  paths: PathWalker;
  /** The destination as the client named it. */
  input: string;
  /** Largest accepted file; the multipart plugin truncates there and flags the part. */
  maxUploadBytes: number;
  /** Aborts the upload (server shutdown): the temporary file is removed. */
  signal: AbortSignal;
  /** Told the absolute path of each temporary file when it is created and when it is gone. */
  onTemporaryFile: (event: 'created' | 'gone', path: string) => void;
}

/**
 * Buffer of each stage of the upload path (the parser, the file part, the file): with Node's
 * 16 KiB defaults every 64 KiB socket read stalls the parser until the disk write returns, and
 * the request is paused and resumed once per chunk.
 */
const UPLOAD_BUFFER_BYTES = 1024 * 1024;

const missingFile = () =>
  new HttpError(422, [
    { type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null },
  ]);

/**
 * Checks the destination before any byte is read, so a doomed upload fails at once (see
 * `pathHttpError`: a directory, a device, a file in the way, outside the working directory...).
 */
export function checkUploadDestination(paths: PathWalker, input: string): void {
  let destination: FileDestination | undefined;
  try {
    destination = locateFileForWrite(paths, input, 'path', { createParents: false });
  } catch (error) {
    // Missing parents are created when the file arrives.
    if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return;
    throw pathHttpError(error, 'upload');
  } finally {
    destination?.parent.close();
  }
}

/**
 * Streams the multipart part named `file` into a temporary file in the destination's directory,
 * renamed into place when complete (see `writeStreamAtomic`): memory stays flat, readers never
 * see a partial file, and a failed, oversized, aborted or half-sent upload leaves nothing. The
 * part ends in error when the body ends before its closing boundary, when the connection closes
 * or when `signal` fires, so no upload waits forever. Other parts are drained.
 *
 * Errors: 422 naming `body.file` when there is no such part (or the body is not multipart),
 * 413 `File too large: limit is N bytes`, 400 for a malformed body, and the destination's
 * errors (`pathHttpError`).
 */
export async function receiveUpload(options: ReceiveUploadOptions): Promise<void> {
  const { request, paths, input, maxUploadBytes, signal } = options;
  if (!request.isMultipart()) throw missingFile();

  let received = false;
  let failure: unknown;
  try {
    const parts = request.parts({
      highWaterMark: UPLOAD_BUFFER_BYTES,
      fileHwm: UPLOAD_BUFFER_BYTES,
    });
    for await (const part of parts) {
      if (part.type !== 'file') {
        if (part.valueTruncated || part.fieldnameTruncated) {
          throw new HttpError(413, `Form field ${part.fieldname} is larger than the limit`);
        }
        continue;
      }
      if (received || part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      received = true;
      const stop = () => part.file.destroy(abortReason(request, signal));
      const connection = request.raw.socket;
      connection?.once('close', stop);
      signal.addEventListener('abort', stop, { once: true });
      try {
        failure = await writePart(options, part.file);
      } finally {
        connection?.off('close', stop);
        signal.removeEventListener('abort', stop);
      }
      if (failure !== undefined) break;
    }
  } catch (error) {
    // Raised by the multipart parser itself: its limits (413) or a malformed body.
    const statusCode = (error as { statusCode?: number }).statusCode;
    if (statusCode === 413) throw new HttpError(413, (error as Error).message);
    throw new HttpError(400, `Invalid multipart body: ${(error as Error).message}`);
  }
  if (failure !== undefined) throw failure;
  if (!received) throw missingFile();

  /** Writes the part; returns the failure to answer with, if any. */
  async function writePart(
    { onTemporaryFile }: ReceiveUploadOptions,
    source: NodeJS.ReadableStream & { truncated?: boolean; destroy(error?: Error): void },
  ): Promise<unknown> {
    let destination: FileDestination;
    try {
      destination = locateFileForWrite(paths, input, 'path');
    } catch (error) {
      source.destroy();
      return pathHttpError(error, 'upload');
    }
    const directory = destination.parent;
    const directoryPath = directory.realPath();
    try {
      await writeStreamAtomic({
        source: source as never,
        directory,
        name: destination.name,
        mode: destination.mode,
        highWaterMark: UPLOAD_BUFFER_BYTES,
        verify: () => {
          if (source.truncated) {
            throw new HttpError(413, `File too large: limit is ${maxUploadBytes} bytes`);
          }
        },
        onTemporaryFile: (event, name) => onTemporaryFile(event, `${directoryPath}/${name}`),
      });
      return undefined;
    } catch (error) {
      if (error instanceof HttpError) return error;
      if (signal.aborted) return new HttpError(503, 'The server is shutting down');
      return uploadWriteError(error);
    } finally {
      directory.close();
    }
  }
}

function abortReason(request: FastifyRequest, signal: AbortSignal): Error {
  if (signal.aborted) return new Error('the server is shutting down');
  return new Error(request.raw.complete ? 'the connection closed' : 'the client went away');
}

/**
 * A failure while writing the file, as an answer: 400 / 403 for the destination, a file-system
 * error (`ENOSPC`, ...) unchanged for the error handler, and 400 `Invalid multipart body` for a
 * part that ended before its closing boundary or whose connection went away.
 */
function uploadWriteError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EISDIR' || code === 'ENOTEMPTY') return new HttpError(400, 'Path is a directory');
  if (code === 'EACCES' || code === 'EPERM') return new HttpError(403, 'Permission denied');
  if (code !== undefined && /^E[A-Z0-9]+$/.test(code)) return error;
  return new HttpError(400, `Invalid multipart body: ${(error as Error).message}`);
}
