import { WorkspaceError } from '@agent-workspace/core';
import type { RuntimeBackend } from './runtime-backend.js';

/** Options of {@link releaseFailedStart}. */
export interface ReleaseFailedStartOptions {
  /** The backend whose start failed. */
  backend: Pick<RuntimeBackend, 'stop'>;
  /** The runtime id of the failed start: only what carries it is removed. */
  runtimeId: string;
  /** Bound on the clean-up, in milliseconds. */
  timeoutMs: number;
}

/**
 * Rethrows a backend start's `error` after removing what that start made, even when it was cut
 * short. An `ALREADY_EXISTS` is another start's sandbox and is left alone; a failed clean-up
 * does not hide the start's error.
 */
export async function releaseFailedStart(
  error: unknown,
  { backend, runtimeId, timeoutMs }: ReleaseFailedStartOptions,
): Promise<never> {
  if (!WorkspaceError.isInstance(error, 'ALREADY_EXISTS')) {
    await backend.stop(runtimeId, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => {});
  }
  throw error;
}
