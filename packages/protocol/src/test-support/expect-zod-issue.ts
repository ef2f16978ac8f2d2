import { expect } from 'vitest';
import { ZodError } from 'zod';

/** Asserts that `parse` throws a `ZodError` with an issue at exactly `path` (test helper). */
export function expectZodIssueAt(parse: () => unknown, path: readonly (string | number)[]): void {
  let caught: unknown;
  try {
    parse();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ZodError);
  expect((caught as ZodError).issues.map((issue) => issue.path)).toContainEqual(path);
}
