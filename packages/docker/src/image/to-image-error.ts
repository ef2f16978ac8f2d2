import { abortedError, WorkspaceError } from '@agent-workspace/core';

/** Socket errors that mean the engine cannot be reached at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'ETIMEDOUT']);

/**
 * Normalises a failure of an image operation to a {@link WorkspaceError}: kept as is when it is
 * one, `ABORTED` when `signal` fired, `CONNECTION_ERROR` when the engine cannot be reached, else
 * `PROVISIONING_ERROR` naming the operation.
 */
export function toImageError(
  error: unknown,
  operation: string,
  signal?: AbortSignal,
): WorkspaceError {
  if (WorkspaceError.isInstance(error)) return error;
  if (signal?.aborted) return abortedError(signal);
  const { code, syscall, message } = error as { code?: string; syscall?: string; message?: string };
  if (syscall === 'connect' && code !== undefined && UNREACHABLE.has(code)) {
    return new WorkspaceError({
      code: 'CONNECTION_ERROR',
      message: `cannot reach the Docker engine (${message}); is it running, and may this user use its socket?`,
      cause: error,
    });
  }
  return new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `${operation} failed: ${message ?? String(error)}`,
    cause: error,
  });
}
