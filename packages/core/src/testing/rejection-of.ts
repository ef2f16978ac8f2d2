import { expect } from 'vitest';
import { WorkspaceError, type WorkspaceErrorCode } from '../errors/workspace-error.js';

/** Returns what `promise` rejects with; throws when it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** Asserts that `promise` rejects with a `WorkspaceError` of `code` and returns that error. */
export async function expectRejection(
  promise: Promise<unknown>,
  code: WorkspaceErrorCode,
): Promise<WorkspaceError> {
  const error = await rejectionOf(promise);
  expect(WorkspaceError.isInstance(error), String(error)).toBe(true);
  expect((error as WorkspaceError).code, (error as Error).message).toBe(code);
  return error as WorkspaceError;
}
