import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from '@agent-workspace/core';
import type { BackendSession } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';

/** Longest `/start` and `/resume` wait for a new sandbox to get an address, in milliseconds. */
export const ADDRESS_WAIT_MS = 60_000;

/** Interval between two looks at a sandbox still without an address. */
const ADDRESS_POLL_MS = 100;

/**
 * The session once its sandbox has a URL: a Swarm task gets its published port only once it is
 * scheduled and started, and the OpenHands client refuses a `/start` answer without a `url`.
 * Returns as soon as there is a URL or the engine gives up on the sandbox (not `pending`), at
 * the latest after {@link ADDRESS_WAIT_MS} with what it has then.
 */
export async function awaitSessionAddress(
  context: RuntimeApiContext,
  session: BackendSession,
): Promise<BackendSession> {
  const sessionId = session.labels[RUNTIME_LABELS.sessionId];
  const deadline = Date.now() + ADDRESS_WAIT_MS;
  let current = session;
  while (
    !current.url &&
    current.status === 'running' &&
    current.engineState === 'pending' &&
    sessionId !== undefined &&
    Date.now() < deadline
  ) {
    await sleep(ADDRESS_POLL_MS, undefined, { signal: context.signal }).catch(() => {
      throw abortedError(context.signal);
    });
    const next = await context.backend.get(sessionId, { signal: engineCallSignal(context) });
    if (!next) return current;
    current = next;
  }
  return current;
}
