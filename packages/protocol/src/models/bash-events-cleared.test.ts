import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { bashEventsClearedFromWire, bashEventsClearedToWire } from './bash-events-cleared.js';

describe('BashEventsCleared', () => {
  it('parses and round-trips the clear-all response', () => {
    const wire = { cleared_count: 42 };
    expect(bashEventsClearedFromWire(wire)).toEqual({ clearedCount: 42 });
    expect(bashEventsClearedToWire(bashEventsClearedFromWire(wire))).toStrictEqual(wire);
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => bashEventsClearedFromWire({ cleared_count: -1 }), ['cleared_count']);
    expectZodIssueAt(() => bashEventsClearedFromWire({}), ['cleared_count']);
  });
});
