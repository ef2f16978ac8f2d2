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
  const value = headers?.['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its day and month; `Date.parse` alone would read "-5" as a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
