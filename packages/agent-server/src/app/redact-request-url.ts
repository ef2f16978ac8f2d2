/** Query parameters whose values never reach a log: the deprecated websocket key. */
const SECRET_QUERY_PARAMETERS = ['session_api_key'];

/**
 * The request URL as it may be logged: the value of every secret query parameter replaced by
 * `[redacted]`, e.g. `/sockets/exec?session_api_key=[redacted]`.
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
