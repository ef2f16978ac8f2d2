import { WorkspaceError } from '@agent-workspace/core';
import { HttpError } from '../app/http-error.js';

/** Why a command could not start, in the terms routes and sockets answer with. */
export interface StartFailure {
  /** HTTP status for the routes. */
  status: 400 | 403 | 422 | 503;
  /** Stable code for socket error frames. */
  code: 'INVALID_CWD' | 'FORBIDDEN' | 'INVALID_ARGUMENT' | 'UNAVAILABLE';
  /** Request field at fault, if one is. */
  field: string | undefined;
  detail: string;
}

/**
 * Classifies an error thrown while starting a command (`resolvePath` or
 * `BashEventService.startCommand`); `undefined` for anything unexpected.
 */
export function describeStartError(error: unknown): StartFailure | undefined {
  if (error instanceof HttpError) {
    const detail = String(error.detail);
    return error.statusCode === 403
      ? { status: 403, code: 'FORBIDDEN', field: 'cwd', detail }
      : { status: 400, code: 'INVALID_ARGUMENT', field: 'cwd', detail };
  }
  if (!WorkspaceError.isInstance(error)) return undefined;
  const { field } = error.details;
  switch (error.code) {
    case 'INVALID_CWD':
      return { status: 400, code: 'INVALID_CWD', field: 'cwd', detail: error.message };
    case 'INVALID_ARGUMENT':
      return {
        status: 422,
        code: 'INVALID_ARGUMENT',
        field: typeof field === 'string' ? field : undefined,
        detail: error.message,
      };
    case 'WORKSPACE_CLOSED':
      return { status: 503, code: 'UNAVAILABLE', field: undefined, detail: error.message };
    default:
      return undefined;
  }
}
