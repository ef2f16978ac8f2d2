import { WorkspaceError } from '@agent-workspace/core';
import { HttpError } from '../app/http-error.js';

/**
 * The answer to a path the walker refused: 403 for a permission, a path outside the confinement
 * or a hard link; 400 for any other reason; other errors as they are.
 */
export function refusalHttpError(error: WorkspaceError): unknown {
  switch (error.details.reason) {
    case 'permission':
      return new HttpError(403, `Permission denied: ${String(error.details.path)}`);
    case 'outside':
    case 'hard-link':
      return new HttpError(403, error.message);
    default:
      return error.details.reason !== undefined ? new HttpError(400, error.message) : error;
  }
}

/**
 * OpenHands' answers of a directory read (`search_subdirs`, and our `list_directory`): 404
 * `Directory not found`, 400 `Path is not a directory`, 403 for an unreadable directory or a
 * refused path (see {@link refusalHttpError}).
 */
export function directoryHttpError(error: unknown, input: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') {
    return new HttpError(403, `Permission denied: ${input}`);
  }
  if (!WorkspaceError.isInstance(error)) return error;
  switch (error.details.reason) {
    case 'not-found':
    case 'parent-not-directory':
      return new HttpError(404, 'Directory not found');
    case 'not-directory':
      return new HttpError(400, 'Path is not a directory');
    default:
      return refusalHttpError(error);
  }
}
