import { WorkspaceError } from '@agent-workspace/core';

/** Why a command could not start, in the terms routes and sockets answer with. */
export interface StartFailure {
  /** HTTP status for the routes. */
  status: 400 | 403 | 422 | 429 | 500 | 503;
  /** Stable code for socket error frames. */
  code:
    | 'INVALID_CWD'
    | 'FORBIDDEN'
    | 'INVALID_ARGUMENT'
    | 'TOO_MANY_COMMANDS'
    | 'SPAWN_ERROR'
    | 'UNAVAILABLE';
  /** Request field at fault, if one is. */
  field: string | undefined;
  detail: string;
}

/** Spawn failures that pass: the machine is out of descriptors, processes or memory for now. */
const TRANSIENT_SPAWN_ERRORS = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']);

/**
 * Classifies an error thrown by `BashEventService.startCommand`; `undefined` for anything
 * unexpected. A bad cwd is 400 `INVALID_CWD` (403 when confinement refuses it), too many running
 * commands 429, a spawn that failed for lack of descriptors or processes 503 (500 otherwise).
 */
export function describeStartError(error: unknown): StartFailure | undefined {
  if (!WorkspaceError.isInstance(error)) return undefined;
  const field = typeof error.details.field === 'string' ? error.details.field : undefined;
  const detail = error.message;
  switch (error.code) {
    case 'FORBIDDEN':
      return { status: 403, code: 'FORBIDDEN', field, detail };
    case 'INVALID_CWD':
    case 'NOT_FOUND':
      return { status: 400, code: 'INVALID_CWD', field: 'cwd', detail };
    case 'INVALID_ARGUMENT':
      return field === 'cwd'
        ? { status: 400, code: 'INVALID_CWD', field, detail }
        : { status: 422, code: 'INVALID_ARGUMENT', field, detail };
    case 'RESOURCE_EXHAUSTED':
      return { status: 429, code: 'TOO_MANY_COMMANDS', field: undefined, detail };
    case 'SPAWN_ERROR': {
      const transient = TRANSIENT_SPAWN_ERRORS.has(String(error.details.errno));
      return transient
        ? { status: 503, code: 'SPAWN_ERROR', field: undefined, detail: `${detail}; retry later` }
        : { status: 500, code: 'SPAWN_ERROR', field: undefined, detail };
    }
    case 'WORKSPACE_CLOSED':
      return { status: 503, code: 'UNAVAILABLE', field: undefined, detail };
    default:
      return undefined;
  }
}
