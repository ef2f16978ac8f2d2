import { stat } from 'node:fs/promises';
import path from 'node:path';
import { errnoOf } from '../../fs/path-error.js';

/** Which step of a file copy failed; picks the wording of {@link describeCopyError}. */
export type CopyStep =
  | 'read-source'
  | 'inspect-destination'
  | 'create-parent'
  | 'write-destination';

/** The two paths of a copy to, from or on this machine. */
export interface CopyPaths {
  sourcePath: string;
  destinationPath: string;
}

/** Node's system errors carry a `path`. */
interface SystemError {
  path?: unknown;
}

/**
 * Turns a file-system error raised during a copy into a clear, human message that names the
 * offending path, e.g. `source file does not exist: /a/b` or `permission denied: /c`.
 */
export function describeCopyError(error: unknown, step: CopyStep, paths: CopyPaths): string {
  const code = errnoOf(error);
  const failedPath = systemErrorPath(error);
  if (code === 'EACCES' || code === 'EPERM') {
    if (step === 'read-source') return `permission denied reading source file: ${paths.sourcePath}`;
    if (step === 'create-parent') {
      return `permission denied creating directory: ${failedPath ?? path.dirname(paths.destinationPath)}`;
    }
    return `permission denied writing destination: ${paths.destinationPath}`;
  }
  if (step === 'read-source') {
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return `source file does not exist: ${paths.sourcePath}`;
    }
    if (code === 'EISDIR') return `source is a directory: ${paths.sourcePath}`;
  } else {
    if (code === 'EISDIR') return `destination is a directory: ${paths.destinationPath}`;
    if (code === 'ENOSPC') return `no space left on device writing ${paths.destinationPath}`;
    if (code === 'EROFS') return `read-only file system: ${paths.destinationPath}`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return `cannot copy ${paths.sourcePath} to ${paths.destinationPath}: ${reason}`;
}

/**
 * Walks up from `directory` to the nearest existing ancestor and returns it when it is not a
 * directory (the reason `mkdir -p` failed); `undefined` otherwise.
 */
export async function findNonDirectoryAncestor(directory: string): Promise<string | undefined> {
  let current = directory;
  for (;;) {
    try {
      const stats = await stat(current);
      return stats.isDirectory() ? undefined : current;
    } catch (error) {
      // ENOENT: not there yet, look further up; ENOTDIR: an ancestor is a file, keep walking.
      const code = errnoOf(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

function systemErrorPath(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { path: failedPath } = error as SystemError;
  return typeof failedPath === 'string' ? failedPath : undefined;
}
