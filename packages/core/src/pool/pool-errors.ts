import { WorkspaceError } from '../errors/workspace-error.js';

/** `error` as a `WorkspaceError`: itself, or a `PROVISIONING_ERROR` saying `what` failed. */
export function asPoolError(error: unknown, what: string): WorkspaceError {
  if (WorkspaceError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `${what}: ${reason}`,
    cause: error,
  });
}

/** The `WORKSPACE_CLOSED` error of a closed pool (`details.pool` is true). */
export function poolClosedError(label: string): WorkspaceError {
  return new WorkspaceError({
    code: 'WORKSPACE_CLOSED',
    message: `the ${label} is closed`,
    details: { pool: true },
  });
}
