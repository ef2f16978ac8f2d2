const marker = 'agent-workspace.error';
const markerSymbol = Symbol.for(marker);

/**
 * Stable error codes. Branch on `error.code`, never on the message.
 *
 * - `INVALID_ARGUMENT`: a caller passed a bad value (the message names the field).
 * - `INVALID_CWD`: the working directory of a command does not exist or is not a directory.
 * - `NOT_FOUND`: a file or directory the operation needs does not exist (the message names it).
 * - `FORBIDDEN`: a confinement policy refuses the path or operation (it leads outside the working
 *   directory, or through a hard link, a foreign git directory, ...); the message names the field.
 * - `INVALID_CONFIG`: a workspace config failed validation.
 * - `UNKNOWN_WORKSPACE_KIND` / `DUPLICATE_WORKSPACE_KIND`: registry misuse.
 * - `NOT_SUPPORTED`: the workspace type cannot do this.
 * - `ABORTED`: the caller's `AbortSignal` fired.
 * - `WORKSPACE_CLOSED`: the workspace was used after `close()`.
 * - `WORKSPACE_PAUSED`: the workspace was used while paused.
 * - `GIT_ERROR`: git failed in a way that is not "not a repository".
 * - `CONNECTION_ERROR`, `AUTHENTICATION_ERROR`, `SERVER_ERROR`, `PROTOCOL_ERROR`: transport failures.
 * - `PROVISIONING_ERROR`: a sandbox could not be created, never became alive, or could not be
 *   paused, resumed or released; the message carries the sandbox's state and last log lines
 *   when there are any.
 * - `SANDBOX_EXITED`: the sandbox of a provisioned workspace (a container, a process, ...)
 *   stopped or disappeared while the workspace was in use; `details` has its `exitCode` and
 *   last `logs`. The workspace cannot recover: close it and create a new one.
 * - `SPAWN_ERROR`: the process could not be started (`details.errno` says why, e.g. `EMFILE`).
 * - `RESOURCE_EXHAUSTED`: a limit was reached (concurrent commands, open files, connections);
 *   nothing was done, and the same call may succeed later.
 */
export type WorkspaceErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_CWD'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'INVALID_CONFIG'
  | 'UNKNOWN_WORKSPACE_KIND'
  | 'DUPLICATE_WORKSPACE_KIND'
  | 'NOT_SUPPORTED'
  | 'ABORTED'
  | 'WORKSPACE_CLOSED'
  | 'WORKSPACE_PAUSED'
  | 'GIT_ERROR'
  | 'CONNECTION_ERROR'
  | 'AUTHENTICATION_ERROR'
  | 'SERVER_ERROR'
  | 'PROTOCOL_ERROR'
  | 'PROVISIONING_ERROR'
  | 'SANDBOX_EXITED'
  | 'SPAWN_ERROR'
  | 'RESOURCE_EXHAUSTED';

/** Options for {@link WorkspaceError}. */
export interface WorkspaceErrorOptions {
  code: WorkspaceErrorCode;
  message: string;
  cause?: unknown;
  /** Extra structured facts (field name, status code, path, ...). */
  details?: Record<string, unknown>;
}

/**
 * The one error class of agent-workspace. Every failure that is not a command's own exit status
 * is a `WorkspaceError` with a stable {@link WorkspaceErrorCode}.
 *
 * Use {@link WorkspaceError.isInstance} rather than `instanceof`: it also recognises errors thrown
 * by another installed copy of the package.
 */
export class WorkspaceError extends Error {
  readonly [markerSymbol] = true;
  /** Stable machine-readable code. */
  readonly code: WorkspaceErrorCode;
  /** Extra structured facts about the failure. */
  readonly details: Record<string, unknown>;

  constructor({ code, message, cause, details }: WorkspaceErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WorkspaceError';
    this.code = code;
    this.details = details ?? {};
  }

  /** True when `error` is a `WorkspaceError` from any copy of this package; optionally of `code`. */
  static isInstance(error: unknown, code?: WorkspaceErrorCode): error is WorkspaceError {
    if (typeof error !== 'object' || error === null) return false;
    if ((error as Record<symbol, unknown>)[markerSymbol] !== true) return false;
    return code === undefined || (error as WorkspaceError).code === code;
  }
}
