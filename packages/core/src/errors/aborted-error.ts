import { WorkspaceError } from './workspace-error.js';

/** Builds the `ABORTED` error for a fired signal, keeping its reason as `cause`. */
export function abortedError(signal: AbortSignal): WorkspaceError {
  return new WorkspaceError({
    code: 'ABORTED',
    message: 'the operation was aborted',
    cause: signal.reason,
  });
}
