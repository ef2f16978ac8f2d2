import { describe, expect, it } from 'vitest';
import { EventClock, microsToTimestamp, timestampToMicros } from './event-clock.js';

describe('EventClock', () => {
  it('hands out strictly increasing, distinct times close to the wall clock', () => {
    const clock = new EventClock();
    const before = Date.now() * 1000;
    const times = Array.from({ length: 5000 }, () => clock.next());
    for (let index = 1; index < times.length; index++) {
      expect(times[index]!.micros).toBeGreaterThan(times[index - 1]!.micros);
      expect(times[index]!.timestamp > times[index - 1]!.timestamp).toBe(true);
    }
    expect(times[0]!.micros).toBeGreaterThanOrEqual(before);
    expect(times[0]!.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('moves past reloaded times even when they lie in the future', () => {
    const clock = new EventClock();
    const future = timestampToMicros('2999-01-01T00:00:00.000007Z');
    clock.advancePast(future);
    expect(clock.next()).toEqual({ micros: future + 1, timestamp: '2999-01-01T00:00:00.000008Z' });
  });

  it('converts between microseconds and canonical timestamps', () => {
    const timestamp = '2026-08-22T10:00:00.123456Z';
    expect(timestampToMicros(timestamp)).toBe(Date.UTC(2026, 7, 22, 10, 0, 0, 123) * 1000 + 456);
    expect(microsToTimestamp(timestampToMicros(timestamp))).toBe(timestamp);
    expect(microsToTimestamp(0)).toBe('1970-01-01T00:00:00.000000Z');
  });
});
