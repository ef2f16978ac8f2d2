import { type SandboxEndpoint, type SandboxState, WorkspaceError } from '@agent-workspace/core';
import { FATAL_POD_STATUSES, type RuntimeSession } from '@agent-workspace/protocol';

/**
 * The sandbox state of a Runtime API session (`undefined`: the Runtime API does not know it):
 * `stopped`, and a fatal `pod_status` (`failed`, `unknown`, `crashloopbackoff`), are `exited`
 * with the runtime's message as detail; `paused` is `paused`; a sandbox not yet `running` or
 * `ready` is `starting`.
 */
export function sessionSandboxState(session: RuntimeSession | undefined): SandboxState {
  if (!session) return { status: 'missing' };
  const message = session.message ?? undefined;
  if (session.status === 'stopped') return { status: 'exited', detail: message };
  if (FATAL_POD_STATUSES.includes(session.podStatus)) {
    const detail = message ? `${session.podStatus}: ${message}` : session.podStatus;
    return { status: 'exited', detail };
  }
  if (session.status === 'paused') return { status: 'paused', detail: message };
  if (session.podStatus === 'ready' || session.podStatus === 'running') {
    return { status: 'running' };
  }
  return { status: 'starting', detail: message };
}

/** True when the Runtime API answered `error` with a 4xx: the request did nothing. */
export function refusedByServer(error: unknown): boolean {
  if (!WorkspaceError.isInstance(error)) return false;
  const { status } = error.details;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** The agent-server endpoint of a ready session. */
export function endpointOf(session: RuntimeSession): SandboxEndpoint {
  return { host: session.url, apiKey: session.sessionApiKey };
}
