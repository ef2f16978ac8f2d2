import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import {
  formatWireTimestamp,
  normalizeWireTimestamp,
  wireTimestampSchema,
} from './wire-timestamp.js';

describe('wire timestamps', () => {
  it('formats UTC with six fraction digits and Z', () => {
    const date = new Date(Date.UTC(2026, 7, 22, 10, 0, 0, 123));
    expect(formatWireTimestamp(date)).toBe('2026-08-22T10:00:00.123000Z');
    expect(formatWireTimestamp(date, 456)).toBe('2026-08-22T10:00:00.123456Z');
    expect(formatWireTimestamp(date, 7)).toBe('2026-08-22T10:00:00.123007Z');
  });

  it('rejects microseconds outside 0-999', () => {
    const date = new Date(0);
    expect(() => formatWireTimestamp(date, 1000)).toThrow(RangeError);
    expect(() => formatWireTimestamp(date, -1)).toThrow(RangeError);
    expect(() => formatWireTimestamp(date, 1.5)).toThrow(RangeError);
  });

  it('parses with or without a fraction and with a +00:00 offset', () => {
    const expected = Date.UTC(2026, 7, 22, 10, 0, 0, 123);
    for (const text of ['2026-08-22T10:00:00.123456Z', '2026-08-22T10:00:00.123456+00:00']) {
      const normalized = normalizeWireTimestamp(text);
      expect(normalized).toBe('2026-08-22T10:00:00.123456Z');
      expect(Date.parse(normalized)).toBe(expected);
    }
    expect(normalizeWireTimestamp('2026-08-22T10:00:00Z')).toBe('2026-08-22T10:00:00.000000Z');
    expect(normalizeWireTimestamp('2026-08-22T10:00:00')).toBe('2026-08-22T10:00:00.000000Z');
    expect(Date.parse(normalizeWireTimestamp('2026-08-22T10:00:00'))).toBe(
      Date.UTC(2026, 7, 22, 10),
    );
  });

  it('converts other offsets to UTC', () => {
    expect(normalizeWireTimestamp('2026-08-22T12:30:00.5+02:30')).toBe(
      '2026-08-22T10:00:00.500000Z',
    );
    expect(normalizeWireTimestamp('2026-08-22T00:00:00-0100')).toBe('2026-08-22T01:00:00.000000Z');
  });

  it('keeps microseconds and truncates finer digits when normalising', () => {
    expect(normalizeWireTimestamp('2026-08-22T10:00:00.123456Z')).toBe(
      '2026-08-22T10:00:00.123456Z',
    );
    expect(normalizeWireTimestamp('2026-08-22T10:00:00.123456789+00:00')).toBe(
      '2026-08-22T10:00:00.123456Z',
    );
  });

  it('rejects malformed and impossible date-times', () => {
    for (const bad of [
      '2026-08-22',
      '2026-08-22T10:00Z',
      '2026-02-30T10:00:00Z',
      '2026-08-22T24:00:00Z',
      '2026-08-22T10:00:00+25:00',
      '2026-08-22T10:00:00+02:60',
      'yesterday',
    ]) {
      expect(wireTimestampSchema.safeParse(bad).success, bad).toBe(false);
      expect(() => normalizeWireTimestamp(bad)).toThrow(ZodError);
    }
  });
});
