import { SESSION_API_KEY_QUERY_PARAMETER } from '@agent-workspace/protocol';

/** Query parameters whose values never reach a log: the deprecated websocket key. */
const SECRET_QUERY_PARAMETERS = [SESSION_API_KEY_QUERY_PARAMETER];

/**
 * The request URL as it may be logged: the value of every secret query parameter replaced by
 * `[redacted]` (percent-encoded), the rest of the URL unchanged.
 */
export function redactRequestUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const query = new URLSearchParams(url.slice(queryStart + 1));
  let redacted = false;
  for (const name of SECRET_QUERY_PARAMETERS) {
    if (!query.has(name)) continue;
    query.set(name, '[redacted]');
    redacted = true;
  }
  return redacted ? `${url.slice(0, queryStart)}?${query.toString()}` : url;
}
