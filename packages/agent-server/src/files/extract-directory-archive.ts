import {
  type ArchiveSummary,
  archiveProblemOf,
  type DirectoryHandle,
  extractArchive,
  type PathWalker,
} from '@agent-workspace/core/internal';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../app/http-error.js';
import { pathHttpError } from './path-http-error.js';

/** Options of {@link extractDirectoryArchive}. */
export interface ExtractDirectoryArchiveOptions {
  /** A request whose raw body is the tar stream. */
  request: FastifyRequest;
  /** Resolves the destination (confined when the server is). */
  paths: PathWalker;
  /** The destination directory as the client named it. */
  input: string;
  /** Most entries accepted (413 past it). */
  maxEntries: number;
  /** Most bytes of file content accepted (413 past it). */
  maxBytes: number;
  /** Aborts the extraction (server shutdown): the file being written is removed. */
  signal: AbortSignal;
  /** Told the absolute path of each temporary file when it is created and when it is gone. */
  onTemporaryFile: (event: 'created' | 'gone', path: string) => void;
}

/**
 * Opens the destination directory, creating it and its parents when missing (race-free and
 * confined when the server is), before any byte of the body is read; then extracts the body
 * into it (see `extractArchive`: atomic files, nothing written through a link). The extraction
 * ends in error when the connection closes or `signal` fires, so none waits forever.
 *
 * Errors: 400 / 403 for the destination (`pathHttpError`), 400 naming the entry and why
 * (absolute, `..`, a hard link, a device or FIFO, a GNU sparse file, through a symbolic link,
 * over a directory, FIFO, device or socket already there, a malformed or truncated stream), 413
 * naming the entry past `maxEntries` or `maxBytes`, 503 on shutdown.
 */
export async function extractDirectoryArchive(
  options: ExtractDirectoryArchiveOptions,
): Promise<ArchiveSummary> {
  const { request, paths, input, signal } = options;
  const directory = openDestination(paths, input);
  const source = request.raw;
  const stop = () => {
    if (!source.complete) source.destroy(new Error('the client went away'));
  };
  source.socket?.once('close', stop);
  try {
    return await extractArchive({
      source,
      directory,
      walker: paths,
      maxEntries: options.maxEntries,
      maxBytes: options.maxBytes,
      signal,
      onTemporaryFile: options.onTemporaryFile,
    });
  } catch (error) {
    if (signal.aborted) throw new HttpError(503, 'The server is shutting down');
    const problem = archiveProblemOf(error);
    if (problem === 'too-many-entries' || problem === 'too-large') {
      throw new HttpError(413, (error as Error).message);
    }
    if (problem !== undefined) throw new HttpError(400, (error as Error).message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw new HttpError(403, 'Permission denied');
    if (code === 'ECONNRESET' || !source.complete) {
      throw new HttpError(400, `Invalid archive body: ${(error as Error).message}`);
    }
    throw pathHttpError(error, 'upload');
  } finally {
    source.socket?.off('close', stop);
    directory.close();
  }
}

/** The destination directory, created with its parents when missing. */
function openDestination(paths: PathWalker, input: string): DirectoryHandle {
  const walk = paths.begin(`${input.replace(/\/+$/, '')}/`, 'path', { createParents: true });
  try {
    const end = paths.walk(walk);
    try {
      paths.assertInside(end.parent.realPath(), walk);
    } catch (error) {
      end.parent.close();
      throw error;
    }
    return end.parent;
  } catch (error) {
    throw pathHttpError(error, 'upload');
  }
}
