import { WorkspaceError, type WorkspaceErrorCode } from '../errors/workspace-error.js';
import { parseRetryAfter } from './parse-retry-after.js';

/** Codes a status can be given instead of the agent-server reading (see {@link httpStatusError}). */
export type StatusErrorCode = Extract<
  WorkspaceErrorCode,
  | 'AUTHENTICATION_ERROR'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'INVALID_ARGUMENT'
  | 'RESOURCE_EXHAUSTED'
>;

/** Codes of statuses by which a server refuses the request itself, as REST APIs use them. */
export const REST_REFUSAL_CODES: Readonly<Record<number, StatusErrorCode>> = {
  400: 'INVALID_ARGUMENT',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  422: 'INVALID_ARGUMENT',
};

/** Options of {@link httpStatusError}. */
export interface HttpStatusErrorOptions {
  /** The server's base URL, named in the message. */
  host: string;
  /** What the server is, for the message. Default `the agent-server`. */
  peer?: string | undefined;
  /** What was being done, e.g. `GET /api/git/changes`. */
  operation: string;
  status: number;
  /** The server's `detail` (with `exception` appended for 5xx), or the raw body. */
  detail: string;
  /** True when a key was configured. */
  hasApiKey: boolean;
  /** The key as messages name it. Default `session API key`. */
  keyName?: string | undefined;
  /** The option that sets the key, for the message. Default `apiKey`. */
  keyOption?: string | undefined;
  /** The reply's `Retry-After` header; a busy error carries it as `details.retryAfterMs`. */
  retryAfter?: string | undefined;
  /** Codes for statuses, taking precedence over the readings below (e.g. {@link REST_REFUSAL_CODES}). */
  codes?: Readonly<Record<number, StatusErrorCode>> | undefined;
}

/** `detail` values with which servers and proxies refuse the caller rather than the request. */
const AUTH_DETAILS = new Set([
  'Unauthorized',
  'Forbidden',
  'Not authenticated',
  'Authentication failed',
  '',
]);

/**
 * Maps an unexpected HTTP status to a typed error naming the server: a status listed in `codes`
 * gets that code; otherwise 401, and 403 with an authentication detail, →
 * `AUTHENTICATION_ERROR`; another 403 (the server's confinement) → `FORBIDDEN`; 429, and 503
 * asking to retry later (in its detail or a `Retry-After`), → `RESOURCE_EXHAUSTED` (nothing was
 * done; `details.retryAfterMs` when the server said); other 5xx → `SERVER_ERROR` carrying the
 * body's detail; anything else → `PROTOCOL_ERROR`.
 */
export function httpStatusError({
  host,
  peer = 'the agent-server',
  operation,
  status,
  detail,
  hasApiKey,
  keyName = 'session API key',
  keyOption = 'apiKey',
  retryAfter,
  codes = {},
}: HttpStatusErrorOptions): WorkspaceError {
  const details = { host, operation, status, detail };
  const at = `${peer} at ${host}`;
  const code = codes[status] ?? defaultCode(status, detail, retryAfter);
  switch (code) {
    case 'AUTHENTICATION_ERROR':
      return new WorkspaceError({
        code,
        message: hasApiKey
          ? `${at} rejected the ${keyName} (HTTP ${status} on ${operation}): check ${keyOption}`
          : `${at} requires a ${keyName} (HTTP ${status} on ${operation}): pass ${keyOption}`,
        details,
      });
    case 'RESOURCE_EXHAUSTED': {
      const retryAfterMs = parseRetryAfter(retryAfter);
      const hint =
        retryAfterMs === undefined ? '' : `; retry in ${Math.ceil(retryAfterMs / 1000)} s`;
      return new WorkspaceError({
        code,
        message: `${at} is busy (HTTP ${status} on ${operation}): ${detail}${hint}`,
        details: { ...details, ...(retryAfterMs !== undefined && { retryAfterMs }) },
      });
    }
    case 'FORBIDDEN':
    case 'ALREADY_EXISTS':
      return new WorkspaceError({
        code,
        message: `${at} refused ${operation} (HTTP ${status}): ${detail}`,
        details,
      });
    case 'INVALID_ARGUMENT':
      return new WorkspaceError({
        code,
        message: `${at} refused ${operation} as invalid (HTTP ${status}): ${detail}`,
        details,
      });
    case 'NOT_FOUND':
      return new WorkspaceError({
        code,
        message: `${at} found nothing for ${operation} (HTTP ${status}): ${detail}`,
        details,
      });
    case 'SERVER_ERROR':
      return new WorkspaceError({
        code,
        message: `${at} failed on ${operation} (HTTP ${status}): ${detail}`,
        details,
      });
    default:
      return new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `unexpected HTTP ${status} from ${at} on ${operation}: ${detail}`,
        details,
      });
  }
}

/** The code of a status no `codes` entry names, as the agent-server protocol reads it. */
function defaultCode(
  status: number,
  detail: string,
  retryAfter: string | undefined,
): WorkspaceErrorCode {
  if (status === 403 && !AUTH_DETAILS.has(detail)) return 'FORBIDDEN';
  if (status === 401 || status === 403) return 'AUTHENTICATION_ERROR';
  const retryLater = /retry later/i.test(detail) || parseRetryAfter(retryAfter) !== undefined;
  if (status === 429 || (status === 503 && retryLater)) return 'RESOURCE_EXHAUSTED';
  return status >= 500 ? 'SERVER_ERROR' : 'PROTOCOL_ERROR';
}
