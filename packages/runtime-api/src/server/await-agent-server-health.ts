import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from '@agent-workspace/core';
import type { BackendSession } from '../backend/runtime-backend.js';
import { probeHealth } from './probe-agent-server.js';
import type { RuntimeApiContext } from './runtime-api-context.js';

/** Longest wait for a restarted sandbox's agent-server to answer `/health`, in milliseconds. */
export const HEALTH_WAIT_MS = 60_000;

/** Interval between two health probes of an agent-server still starting. */
const HEALTH_POLL_MS = 200;

/**
 * Waits until the agent-server of `session` answers `GET /health`, at most
 * {@link HEALTH_WAIT_MS}: a `/resume` that started a new sandbox process (a Swarm task, a Docker
 * container the engine stopped while paused) answers once the session can be acknowledged and
 * used, not while its agent-server still boots. Answers whether it became healthy.
 */
export async function awaitAgentServerHealth(
  context: RuntimeApiContext,
  session: BackendSession,
): Promise<boolean> {
  if (session.url === undefined) return false;
  const deadline = Date.now() + HEALTH_WAIT_MS;
  const probe = { timeoutMs: context.options.readinessTimeoutMs, signal: context.signal };
  for (;;) {
    if (await probeHealth(session.url, probe)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(HEALTH_POLL_MS, undefined, { signal: context.signal }).catch(() => {
      throw abortedError(context.signal);
    });
  }
}
