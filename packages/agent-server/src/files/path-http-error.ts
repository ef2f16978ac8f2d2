import { lstatSync } from 'node:fs';
import nodePath from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { HttpError } from '../app/http-error.js';

/** What a client path is used for; picks OpenHands' wording where it has one. */
export type PathUse = 'download' | 'upload' | 'git';

/**
 * Turns a path error of `@agent-workspace/core`'s walks into the answer a route gives: 404
 * `File not found`, 400 `Path is not a file` / `Path is a directory` / `Parent path is not a
 * directory: <path>` / the walk's own message, 403 `Permission denied: <path>` or `<field> is
 * outside the working directory: <path>` (confinement). Anything else is returned unchanged.
 */
export function pathHttpError(error: unknown, use: PathUse): unknown {
  if (!WorkspaceError.isInstance(error)) return error;
  const { reason, path } = error.details;
  switch (reason) {
    case 'not-found':
      return use === 'download'
        ? new HttpError(404, 'File not found')
        : new HttpError(400, error.message);
    case 'is-directory':
      return new HttpError(400, use === 'upload' ? 'Path is a directory' : 'Path is not a file');
    case 'not-regular-file':
      return new HttpError(
        400,
        use === 'upload' ? `Path is not a regular file: ${String(path)}` : 'Path is not a file',
      );
    case 'parent-not-directory':
      return use === 'download'
        ? new HttpError(404, 'File not found')
        : new HttpError(400, `Parent path is not a directory: ${blockingAncestor(String(path))}`);
    case 'permission':
      return new HttpError(403, `Permission denied: ${String(path)}`);
    case 'outside':
    case 'hard-link':
      return new HttpError(403, error.message);
    case 'symlink-loop':
    case 'name-too-long':
    case 'nul-byte':
    case 'not-directory':
      return new HttpError(400, error.message);
    default:
      return error;
  }
}

/**
 * The nearest ancestor of `input` that exists but is not a directory (the file in the way), for
 * the message only; `input` itself when none is found.
 */
function blockingAncestor(input: string): string {
  if (!nodePath.isAbsolute(input)) return input;
  for (let current = nodePath.dirname(input); current !== nodePath.dirname(current); ) {
    let stats: ReturnType<typeof lstatSync> | undefined;
    try {
      stats = lstatSync(current);
    } catch {
      // Missing, or below the file in the way: look further up.
    }
    if (stats) return stats.isDirectory() ? input : current;
    current = nodePath.dirname(current);
  }
  return input;
}
