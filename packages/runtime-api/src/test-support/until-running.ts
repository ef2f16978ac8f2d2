import type { BackendSession, RuntimeBackend } from '../backend/runtime-backend.js';
import { pollUntil } from './agent-server-probe.js';

/** The session of `runtimeId` once the engine runs it and publishes its port. */
export function untilRunning(backend: RuntimeBackend, runtimeId: string): Promise<BackendSession> {
  return pollUntil(
    async () => (await backend.getByRuntimeId(runtimeId)) ?? ({} as BackendSession),
    (session) => session.engineState === 'running' && session.url !== undefined,
    { what: `session ${runtimeId} to run` },
  );
}
