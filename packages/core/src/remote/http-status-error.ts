import { WorkspaceError } from '../errors/workspace-error.js';

/** Options of {@link httpStatusError}. */
export interface HttpStatusErrorOptions {
  /** The agent-server's base URL, named in the message. */
  host: string;
  /** What was being done, e.g. `GET /api/git/changes`. */
  operation: string;
  status: number;
  /** The server's `detail` (with `exception` appended for 5xx), or the raw body. */
  detail: string;
  /** True when a session API key was configured. */
  hasApiKey: boolean;
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
 * Maps an unexpected HTTP status to a typed error: 401, and 403 with an authentication detail,
 * → `AUTHENTICATION_ERROR`; another 403 (the server's confinement) → `FORBIDDEN`; 429, and 503
 * asking to retry later, → `RESOURCE_EXHAUSTED` (nothing was done); other 5xx → `SERVER_ERROR`
 * carrying the body's detail; anything else → `PROTOCOL_ERROR`.
 */
export function httpStatusError({
  host,
  operation,
  status,
  detail,
  hasApiKey,
}: HttpStatusErrorOptions): WorkspaceError {
  const details = { host, operation, status, detail };
  if (status === 403 && !AUTH_DETAILS.has(detail)) {
    return new WorkspaceError({
      code: 'FORBIDDEN',
      message: `the agent-server at ${host} refused ${operation}: ${detail}`,
      details,
    });
  }
  if (status === 429 || (status === 503 && /retry later/i.test(detail))) {
    return new WorkspaceError({
      code: 'RESOURCE_EXHAUSTED',
      message: `the agent-server at ${host} is busy (HTTP ${status} on ${operation}): ${detail}`,
      details,
    });
  }
  if (status === 401 || status === 403) {
    return new WorkspaceError({
      code: 'AUTHENTICATION_ERROR',
      message: hasApiKey
        ? `the agent-server at ${host} rejected the session API key (HTTP ${status} on ${operation}): check apiKey`
        : `the agent-server at ${host} requires a session API key (HTTP ${status} on ${operation}): pass apiKey`,
      details,
    });
  }
  if (status >= 500) {
    return new WorkspaceError({
      code: 'SERVER_ERROR',
      message: `the agent-server at ${host} failed on ${operation} (HTTP ${status}): ${detail}`,
      details,
    });
  }
  return new WorkspaceError({
    code: 'PROTOCOL_ERROR',
    message: `unexpected HTTP ${status} from the agent-server at ${host} on ${operation}: ${detail}`,
    details,
  });
}
