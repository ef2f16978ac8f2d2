import { HttpError } from '@agent-workspace/agent-server/http';
import { WorkspaceError } from '@agent-workspace/core';
import { ENGINE_CALL_TIMEOUT_MS } from './runtime-api-context.js';

/** Seconds a client is told to wait after the engine could not be reached. */
export const ENGINE_RETRY_AFTER_SECONDS = 5;

/** An `HttpError` answered with a `Retry-After` header (429 at the session limit, 503). */
export class RetryLaterError extends HttpError {
  readonly retryAfterSeconds: number;

  constructor(statusCode: number, detail: string, retryAfterSeconds: number) {
    super(statusCode, detail);
    this.name = 'RetryLaterError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The `HttpError` a backend failure is answered with, or the error itself (a bug: the error
 * handler answers 500 with an `error_id`): `NOT_FOUND` → 404, `ABORTED` → 503 when the server is
 * `closing`, else 504 (the engine call ran past `ENGINE_CALL_TIMEOUT_MS`), `CONNECTION_ERROR`
 * (the engine is unreachable) → 503 with `Retry-After`, `PROVISIONING_ERROR` (the engine refused
 * or failed) → 502 with the engine's message.
 */
export function backendHttpError(error: unknown, { closing }: { closing: boolean }): unknown {
  if (!WorkspaceError.isInstance(error)) return error;
  switch (error.code) {
    case 'NOT_FOUND':
      return new HttpError(404, error.message);
    case 'ABORTED':
      return closing
        ? new HttpError(503, 'the Runtime API server is shutting down')
        : new HttpError(
            504,
            `the engine did not answer within ${ENGINE_CALL_TIMEOUT_MS / 1000} s; retry later`,
          );
    case 'CONNECTION_ERROR':
      return new RetryLaterError(
        503,
        `the engine is unreachable: ${error.message}`,
        ENGINE_RETRY_AFTER_SECONDS,
      );
    case 'PROVISIONING_ERROR':
      return new HttpError(502, error.message);
    default:
      return error;
  }
}
