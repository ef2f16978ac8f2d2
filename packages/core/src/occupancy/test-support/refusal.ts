import { WorkspaceError } from '../../errors/workspace-error.js';
import { rejectionOf } from '../../testing/rejection-of.js';

/** The `WorkspaceError` `promise` rejects with; throws when it resolves or rejects otherwise. */
export async function refusal(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await rejectionOf(promise);
  if (!WorkspaceError.isInstance(error)) throw error;
  return error;
}
