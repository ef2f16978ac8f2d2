import { expect } from 'vitest';
import { DEMO_FINAL_MESSAGE } from './demo-task.js';
import type { DemoOutcome } from './run-demo.js';

/** What every workspace kind must leave after the scripted demo run: the same files and answer. */
export function expectDemoOutcome(
  outcome: DemoOutcome,
  lines: readonly string[],
  loop: DemoOutcome['loop'],
): void {
  expect(outcome.status).toBe('finished');
  expect(outcome.loop).toBe(loop);
  expect(outcome.finalMessage).toBe(DEMO_FINAL_MESSAGE);
  expect(outcome.failure).toBeUndefined();
  expect(outcome.result?.testOutput).toBe('all tests passed');
  expect(outcome.result?.changes).toEqual(
    expect.arrayContaining([
      { status: 'ADDED', path: 'stats.js' },
      { status: 'ADDED', path: 'stats.test.js' },
    ]),
  );
  expect(outcome.result?.diff.modified).toContain('for (let i = 0; i < numbers.length; i++)');
  // The stream shows the failing run, the fix and the passing run, in that order.
  const text = lines.join('\n');
  const failed = text.indexOf('AssertionError');
  const fixed = text.indexOf('old_str="let i = 1;"');
  const passed = text.lastIndexOf('all tests passed');
  expect(failed).toBeGreaterThan(0);
  expect(fixed).toBeGreaterThan(failed);
  expect(passed).toBeGreaterThan(fixed);
}
