import { HttpError } from '@agent-workspace/agent-server/http';
import type { BackendSession } from '../backend/runtime-backend.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';

/**
 * The session of `runtimeId` for a call that needs it not stopped (pause, resume, snapshot):
 * 404 when the backend has none, 409 when it is stopped.
 */
export async function unstoppedSession(
  context: RuntimeApiContext,
  runtimeId: string,
): Promise<BackendSession> {
  const found = await context.backend.getByRuntimeId(runtimeId, {
    signal: engineCallSignal(context),
  });
  if (!found) throw new HttpError(404, `runtime ${runtimeId} not found`);
  if (found.status === 'stopped') {
    throw new HttpError(409, `runtime ${runtimeId} is stopped; start a new session`);
  }
  return found;
}
