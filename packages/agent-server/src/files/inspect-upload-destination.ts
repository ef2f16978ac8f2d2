import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { HttpError } from '../app/http-error.js';
import { permissionDenied } from './permission-denied.js';

/** Where an upload really goes. */
export interface UploadDestination {
  /** The file to create or replace: a symbolic link is written through, not replaced. */
  target: string;
  /** Permission bits of the file being replaced, if any. */
  mode?: number;
}

/** The nearest ancestor of `target` that exists but is not a directory, if any. */
async function blockingAncestor(target: string): Promise<string | undefined> {
  for (let current = path.dirname(target); ; current = path.dirname(current)) {
    const stats = await stat(current).catch(() => undefined);
    if (stats) return stats.isDirectory() ? undefined : current;
    if (path.dirname(current) === current) return undefined;
  }
}

/**
 * Maps a file-system error about an upload destination to a 4xx: 400 `Path is a directory`,
 * 400 `Parent path is not a directory: <file in the way>`, 403 `Permission denied: <path>`;
 * any other error is returned unchanged.
 */
export async function uploadDestinationError(
  error: unknown,
  destination: string,
): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EISDIR') return new HttpError(400, 'Path is a directory');
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    const blocker = await blockingAncestor(destination);
    if (blocker) return new HttpError(400, `Parent path is not a directory: ${blocker}`);
  }
  return permissionDenied(error, destination);
}

/**
 * Checks an upload destination before any byte is read, so a doomed upload fails at once:
 * a directory or a file in the way of the parent is a 400 (see {@link uploadDestinationError}).
 * A symbolic link resolves to its target, which the upload then replaces (as OpenHands'
 * `open("wb")` writes through it), and a replaced file keeps its permission bits.
 */
export async function inspectUploadDestination(destination: string): Promise<UploadDestination> {
  try {
    const stats = await stat(destination);
    if (stats.isDirectory()) throw new HttpError(400, 'Path is a directory');
    return { target: await realpath(destination), mode: stats.mode & 0o777 };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { target: destination };
    throw error instanceof HttpError ? error : await uploadDestinationError(error, destination);
  }
}
