import type { BashErrorCode } from './bash-error-code.js';
import type { ExecErrorCode } from './exec-error-code.js';
import type { WorkspaceErrorCode } from './workspace-error-code.js';

/** How the agent-server reports a `WorkspaceError` of one code on each of its channels. */
export interface WorkspaceErrorWire {
  /** HTTP status of a route's answer (routes with an OpenHands-defined answer may refine it). */
  status: number;
  /** Code of the exec socket's `error` frame. */
  execCode: ExecErrorCode;
  /** Code of the bash-events socket's `BashError` event. */
  bashErrorCode: BashErrorCode;
}

const SERVER_BUG: WorkspaceErrorWire = {
  status: 500,
  execCode: 'INTERNAL_ERROR',
  bashErrorCode: 'Exception',
};

/** A failure of the LLM provider the server calls: an upstream failure, never the client's. */
function upstream(status: number): WorkspaceErrorWire {
  return { status, execCode: 'INTERNAL_ERROR', bashErrorCode: 'Exception' };
}

/**
 * The one table from `WorkspaceError` codes to the wire. Codes only a client raises (transport,
 * provisioning, registry) map to a 500: on the server they would be a bug.
 */
export const WORKSPACE_ERROR_WIRE: Readonly<Record<WorkspaceErrorCode, WorkspaceErrorWire>> = {
  INVALID_ARGUMENT: { status: 422, execCode: 'INVALID_FRAME', bashErrorCode: 'ValueError' },
  INVALID_CWD: { status: 400, execCode: 'INVALID_CWD', bashErrorCode: 'FileNotFoundError' },
  FORBIDDEN: { status: 403, execCode: 'FORBIDDEN', bashErrorCode: 'PermissionError' },
  // A start frame names one path, its cwd.
  NOT_FOUND: { status: 404, execCode: 'INVALID_CWD', bashErrorCode: 'FileNotFoundError' },
  ALREADY_EXISTS: { status: 409, execCode: 'INTERNAL_ERROR', bashErrorCode: 'ValueError' },
  RESOURCE_EXHAUSTED: {
    status: 429,
    execCode: 'TOO_MANY_COMMANDS',
    bashErrorCode: 'ServiceUnavailableError',
  },
  // Another holder's occupancy lease refuses it: a conflict with the resource's current state.
  WORKSPACE_OCCUPIED: { status: 409, execCode: 'INTERNAL_ERROR', bashErrorCode: 'ValueError' },
  SPAWN_ERROR: { status: 500, execCode: 'SPAWN_ERROR', bashErrorCode: 'OSError' },
  // The server's own services closed: it is shutting down.
  WORKSPACE_CLOSED: {
    status: 503,
    execCode: 'UNAVAILABLE',
    bashErrorCode: 'ServiceUnavailableError',
  },
  GIT_ERROR: { status: 400, execCode: 'INTERNAL_ERROR', bashErrorCode: 'Exception' },
  NOT_SUPPORTED: { status: 501, execCode: 'INTERNAL_ERROR', bashErrorCode: 'Exception' },
  INVALID_CONFIG: SERVER_BUG,
  UNKNOWN_WORKSPACE_KIND: SERVER_BUG,
  DUPLICATE_WORKSPACE_KIND: SERVER_BUG,
  ABORTED: SERVER_BUG,
  WORKSPACE_PAUSED: SERVER_BUG,
  CONNECTION_ERROR: SERVER_BUG,
  AUTHENTICATION_ERROR: SERVER_BUG,
  SERVER_ERROR: SERVER_BUG,
  PROTOCOL_ERROR: SERVER_BUG,
  PROVISIONING_ERROR: SERVER_BUG,
  SANDBOX_EXITED: SERVER_BUG,
  // The server's own LLM provider failed: a bad gateway (504 when it never answered, 503 when
  // it asked to slow down). Never a 401: the client's credentials were fine.
  LLM_AUTHENTICATION: upstream(502),
  LLM_BAD_REQUEST: upstream(502),
  LLM_CONTEXT_WINDOW_EXCEEDED: upstream(502),
  LLM_RATE_LIMITED: upstream(503),
  LLM_SERVER_ERROR: upstream(502),
  LLM_CONNECTION: upstream(502),
  LLM_TIMEOUT: upstream(504),
  LLM_BAD_RESPONSE: upstream(502),
};

/**
 * What a client raises for each exec `error` frame code; `null` for answers that are no failure
 * of the command (a late signal or stdin for a command that already ended: its `exit` follows).
 * A client refines two by context: `INVALID_FRAME` answering its own `start` is the caller's
 * `INVALID_ARGUMENT`, and `FORBIDDEN` with `field: "cwd"` is an `INVALID_CWD`.
 */
export const EXEC_ERROR_OUTCOMES: Readonly<Record<ExecErrorCode, WorkspaceErrorCode | null>> = {
  INVALID_FRAME: 'PROTOCOL_ERROR',
  INVALID_CWD: 'INVALID_CWD',
  FORBIDDEN: 'FORBIDDEN',
  TOO_MANY_COMMANDS: 'RESOURCE_EXHAUSTED',
  SPAWN_ERROR: 'SPAWN_ERROR',
  UNAVAILABLE: 'SERVER_ERROR',
  UNKNOWN_COMMAND: 'CONNECTION_ERROR',
  HISTORY_EXPIRED: 'CONNECTION_ERROR',
  NOT_RUNNING: null,
  STDIN_CLOSED: null,
  INTERNAL_ERROR: 'SERVER_ERROR',
};
