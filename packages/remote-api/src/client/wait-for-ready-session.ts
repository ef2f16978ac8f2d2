import { setTimeout as sleep } from 'node:timers/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { Backoff } from '@agent-workspace/core/internal';
import { FATAL_POD_STATUSES, type RuntimeSession } from '@agent-workspace/protocol';
import type { RuntimeApiClient } from './runtime-api-client.js';

/** First pause between two reads of the session, in milliseconds. */
const INITIAL_POLL_MS = 50;
/** Longest pause between two reads of the session, in milliseconds. */
const MAX_POLL_MS = 1_000;

/** Options of {@link waitForReadySession}. */
export interface WaitForReadySessionOptions {
  runtime: RuntimeApiClient;
  sessionId: string;
  /** Ends the wait, rejecting with its reason (deadline, close, abort). */
  signal: AbortSignal;
  /** Called with every read of the session, to keep the latest. */
  onSession: (session: RuntimeSession) => void;
}

/**
 * Reads `GET /sessions/{id}` until its `pod_status` is `ready`, pausing 50 ms → 1 s between
 * reads. `pending`, `running`, `not found` (and a session the Runtime API does not list yet) are
 * retried; a `stopped` session and a fatal `pod_status` (`failed`, `unknown`,
 * `crashloopbackoff`) are a `PROVISIONING_ERROR` carrying the runtime's message, with
 * `details.podStatus`.
 */
export async function waitForReadySession({
  runtime,
  sessionId,
  signal,
  onSession,
}: WaitForReadySessionOptions): Promise<RuntimeSession> {
  const backoff = new Backoff({ initialMs: INITIAL_POLL_MS, maxMs: MAX_POLL_MS });
  for (;;) {
    const session = await runtime.getSession(sessionId, { signal });
    if (session) {
      onSession(session);
      if (session.status === 'stopped' || FATAL_POD_STATUSES.includes(session.podStatus)) {
        throw notReadyError(session);
      }
      if (session.status === 'running' && session.podStatus === 'ready' && session.url) {
        return session;
      }
    }
    await sleep(backoff.next(), undefined, { signal });
  }
}

function notReadyError(session: RuntimeSession): WorkspaceError {
  const state =
    session.status === 'stopped' ? 'has stopped' : `has pod_status ${session.podStatus}`;
  const hint = session.podStatus === 'crashloopbackoff' ? ' (out of memory?)' : '';
  const message = session.message ? `: ${session.message}` : '';
  return new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `the Runtime API session ${session.sessionId} ${state}${hint}${message}`,
    details: {
      sessionId: session.sessionId,
      runtimeId: session.runtimeId,
      status: session.status,
      podStatus: session.podStatus,
      ...(session.message && { runtimeMessage: session.message }),
    },
  });
}
