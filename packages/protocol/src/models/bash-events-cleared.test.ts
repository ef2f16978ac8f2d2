import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { bashEventsClearedWireSchema } from './bash-events-cleared.js';

describe('BashEventsCleared', () => {
  it('parses the clear-all response', () => {
    const wire = { cleared_count: 42 };
    expect(bashEventsClearedWireSchema.parse(wire)).toStrictEqual(wire);
  });

  it('names the bad field', () => {
    expectZodIssueAt(
      () => bashEventsClearedWireSchema.parse({ cleared_count: -1 }),
      ['cleared_count'],
    );
    expectZodIssueAt(() => bashEventsClearedWireSchema.parse({}), ['cleared_count']);
  });
});
