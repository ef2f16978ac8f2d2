import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './parse-retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it("prefers OpenAI's retry-after-ms", () => {
    expect(parseRetryAfter({ 'retry-after-ms': '1500', 'retry-after': '9' }, now)).toBe(1500);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter({ 'retry-after': '2' }, now)).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, now)).toBe(0);
  });

  it('ignores absent, negative and unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': '-5' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-5' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});
