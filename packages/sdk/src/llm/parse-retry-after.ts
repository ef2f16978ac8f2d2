import { parseRetryAfter as parseRetryAfterValue } from '@agent-workspace/core/internal';

/**
 * How long a provider asks to wait before the next request, in ms: OpenAI's `retry-after-ms`,
 * else `Retry-After` as seconds or an HTTP date. `undefined` when absent or unreadable.
 * Header names are lower case (as `fetch` gives them).
 */
export function parseRetryAfter(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = Number(headers?.['retry-after-ms'] ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  return parseRetryAfterValue(headers?.['retry-after'], now);
}
