import { z } from 'zod';

const TIMESTAMP_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** A parsed timestamp: the instant to the millisecond plus the microseconds below it (0-999). */
interface TimestampParts {
  date: Date;
  microseconds: number;
}

/** Splits an ISO-8601 timestamp; `undefined` when it is malformed or not a real calendar time. */
function splitTimestamp(text: string): TimestampParts | undefined {
  const match = TIMESTAMP_PATTERN.exec(text);
  if (!match) return undefined;
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map(Number);
  const fraction = (match[7] ?? '').padEnd(6, '0');
  const micros = Number(fraction.slice(0, 6));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Math.floor(micros / 1000));
  // Date rolls 2026-02-30 over to March: reject anything that did not survive unchanged.
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hour ||
    date.getUTCMinutes() !== minute ||
    date.getUTCSeconds() !== second
  ) {
    return undefined;
  }
  const offset = match[8];
  if (offset && offset.toUpperCase() !== 'Z') {
    const digits = offset.replace(':', '');
    const offsetHours = Number(digits.slice(1, 3));
    const offsetMinutes = Number(digits.slice(3, 5));
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    const minutes = offsetHours * 60 + offsetMinutes;
    date.setTime(date.getTime() - (offset.startsWith('-') ? -minutes : minutes) * 60_000);
  }
  return { date, microseconds: micros % 1000 };
}

/**
 * An ISO-8601 date-time as bash events and event filters carry it. Accepts `Z`, `+00:00`-style
 * offsets (converted to UTC) or no offset (taken as UTC), with 0-9 fraction digits.
 * {@link normalizeWireTimestamp} gives the canonical form the server emits.
 */
export const wireTimestampSchema = z
  .string()
  .regex(TIMESTAMP_PATTERN, 'Expected an ISO-8601 date-time such as 2026-08-22T10:00:00.123456Z')
  .refine((text) => splitTimestamp(text) !== undefined, 'Not a valid calendar date-time');

/**
 * Formats an instant the way OpenHands serialises bash event timestamps:
 * UTC, six fraction digits, `Z` (e.g. `2026-08-22T10:00:00.123456Z`).
 * @param microseconds Microseconds below the date's millisecond, an integer 0-999.
 */
export function formatWireTimestamp(date: Date, microseconds = 0): string {
  if (!Number.isInteger(microseconds) || microseconds < 0 || microseconds > 999) {
    throw new RangeError(`microseconds must be an integer 0-999, got ${microseconds}`);
  }
  const iso = date.toISOString();
  return `${iso.slice(0, -1)}${String(microseconds).padStart(3, '0')}Z`;
}

/**
 * Rewrites any accepted timestamp in the canonical UTC form with microseconds,
 * e.g. `2026-08-22T12:00:00+02:00` gives `2026-08-22T10:00:00.000000Z`. Throws a `ZodError`
 * when the text is not a valid timestamp.
 */
export function normalizeWireTimestamp(text: string): string {
  const { date, microseconds } = splitTimestamp(wireTimestampSchema.parse(text))!;
  return formatWireTimestamp(date, microseconds);
}
