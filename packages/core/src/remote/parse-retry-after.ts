/**
 * Milliseconds from a `Retry-After` header value: delay seconds (fractions allowed) or an HTTP
 * date (a past one reads 0). `undefined` when absent, negative or unreadable.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; `Date.parse` alone would read "-5" as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
