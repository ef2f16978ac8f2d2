import { WorkspaceError, type WorkspaceErrorCode } from '@agent-workspace/core';
import { expect } from 'vitest';

/** Asserts that `promise` rejects with a `WorkspaceError` of `code`, and returns the error. */
export async function expectWorkspaceError(
  promise: Promise<unknown>,
  code: WorkspaceErrorCode,
): Promise<WorkspaceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(WorkspaceError.isInstance(error) ? error.code : error).toBe(code);
  return error as WorkspaceError;
}
