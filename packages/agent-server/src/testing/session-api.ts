import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';

/**
 * A JSON request to one agent-server with its session key: `body` is sent as JSON, the answer is
 * parsed (`undefined` when empty); a non-2xx answer throws an error naming the method, the path,
 * the status and the body.
 */
export type SessionApi = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

/** A {@link SessionApi} for the server at `baseUrl` (no trailing slash) with `sessionKey`. */
export function sessionApi(baseUrl: string, sessionKey: string): SessionApi {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        [SESSION_API_KEY_HEADER]: sessionKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
