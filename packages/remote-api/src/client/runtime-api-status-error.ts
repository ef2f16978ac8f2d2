import { WorkspaceError } from '@agent-workspace/core';

/** Options of {@link runtimeApiStatusError}. */
export interface RuntimeApiStatusErrorOptions {
  /** Base URL of the Runtime API, named in the message. */
  url: string;
  /** What was being done, e.g. `POST /start`. */
  operation: string;
  status: number;
  /** The server's `detail` (validation issues as `loc: msg`), or the raw body. */
  detail: string;
  /** The `Retry-After` header of a 429 or 503, when there is one. */
  retryAfter?: string | undefined;
}

/**
 * Maps an unexpected Runtime API status to a typed error naming the Runtime API (never the
 * agent-server): 401/403 → `AUTHENTICATION_ERROR` (check `runtimeApiKey`), 404 → `NOT_FOUND`,
 * 409 → `ALREADY_EXISTS`, 400/422 → `INVALID_ARGUMENT` with the server's detail, 429/503 →
 * `RESOURCE_EXHAUSTED` (with `details.retryAfterMs` when the server said), other 5xx →
 * `SERVER_ERROR`, anything else → `PROTOCOL_ERROR`.
 */
export function runtimeApiStatusError({
  url,
  operation,
  status,
  detail,
  retryAfter,
}: RuntimeApiStatusErrorOptions): WorkspaceError {
  const details = { url, operation, status, detail };
  const at = `the Runtime API at ${url}`;
  if (status === 401 || status === 403) {
    return new WorkspaceError({
      code: 'AUTHENTICATION_ERROR',
      message: `${at} rejected the runtime API key (HTTP ${status} on ${operation}): check runtimeApiKey`,
      details,
    });
  }
  if (status === 404) {
    return new WorkspaceError({
      code: 'NOT_FOUND',
      message: `${at} found nothing for ${operation} (HTTP 404): ${detail}`,
      details,
    });
  }
  if (status === 409) {
    return new WorkspaceError({
      code: 'ALREADY_EXISTS',
      message: `${at} refused ${operation} (HTTP 409): ${detail}`,
      details,
    });
  }
  if (status === 400 || status === 422) {
    return new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `${at} refused ${operation} as invalid (HTTP ${status}): ${detail}`,
      details,
    });
  }
  if (status === 429 || status === 503) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    const hint = retryAfterMs === undefined ? '' : `; retry in ${Math.ceil(retryAfterMs / 1000)} s`;
    return new WorkspaceError({
      code: 'RESOURCE_EXHAUSTED',
      message: `${at} is busy (HTTP ${status} on ${operation}): ${detail}${hint}`,
      details: { ...details, ...(retryAfterMs !== undefined && { retryAfterMs }) },
    });
  }
  if (status >= 500) {
    return new WorkspaceError({
      code: 'SERVER_ERROR',
      message: `${at} failed on ${operation} (HTTP ${status}): ${detail}`,
      details,
    });
  }
  return new WorkspaceError({
    code: 'PROTOCOL_ERROR',
    message: `unexpected HTTP ${status} from ${at} on ${operation}: ${detail}`,
    details,
  });
}

/** Milliseconds from a `Retry-After` value (seconds or an HTTP date); undefined when unusable. */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
