import { WorkspaceError } from '../errors/workspace-error.js';

/** Reasons worth naming, by Node / undici / ws error code. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
  UND_ERR_SOCKET: 'connection closed unexpectedly',
  UND_ERR_CLOSED: 'client closed',
};

/** The `code` of `error`, of its `cause`, or of the first of its `errors` (AggregateError). */
function codeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const { code, cause, errors } = current as {
      code?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string' && code in REASONS) return code;
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return undefined;
}

/** Options of {@link transportError}. */
export interface TransportErrorOptions {
  /** The server's base URL, named in the message. */
  host: string;
  /** What the server is, for the message. Default `the agent-server`. */
  peer?: string | undefined;
  /** What was being done, e.g. `GET /api/git/changes`. */
  operation: string;
  /** The low-level error (Node, undici or ws). */
  cause: unknown;
}

/**
 * Turns a network failure talking to an agent-server (or another server: see `peer`) into a
 * `CONNECTION_ERROR` whose message names the server, the reason and what to check.
 */
export function transportError({
  host,
  peer = 'the agent-server',
  operation,
  cause,
}: TransportErrorOptions): WorkspaceError {
  const code = codeOf(cause);
  const reason = code ? REASONS[code] : cause instanceof Error ? cause.message : String(cause);
  return new WorkspaceError({
    code: 'CONNECTION_ERROR',
    message: `cannot reach ${peer} at ${host} (${reason}) during ${operation}: check that the server is running and that host and port are right`,
    cause,
    details: { host, operation, ...(code ? { errorCode: code } : {}) },
  });
}
