import { WorkspaceError } from './workspace-error.js';

/** Builds an `INVALID_ARGUMENT` error that names the field and the reason. */
export function invalidArgument(field: string, reason: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_ARGUMENT',
    message: `${field} ${reason}`,
    details: { field },
  });
}
