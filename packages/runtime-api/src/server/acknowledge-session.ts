import { setTimeout as sleep } from 'node:timers/promises';
import type { BackendSession } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, sessionLabelFields } from '../backend/session-labels.js';
import { initClaimedSession } from './init-claimed-session.js';
import {
  type AgentServerClock,
  fetchServerClock,
  type ProbeOptions,
  recordActivity,
} from './probe-agent-server.js';
import type { RuntimeApiContext } from './runtime-api-context.js';
import { sessionKeyOf } from './session-key.js';

/**
 * True when the agent-server's clock shows keyed activity later than its first second, which is
 * what acknowledges a session's start: a client used it, or the server recorded a client's fetch
 * (see {@link acknowledgeSession}). Whole seconds hide activity within the first second: an
 * agent-server nobody used reports an `idle_time` of at least its `uptime`.
 */
export function isStartAcknowledged(clock: AgentServerClock): boolean {
  return clock.idleTimeSeconds < clock.uptimeSeconds;
}

/** True for a session whose start must be acknowledged and whose agent-server can say so. */
export function awaitsAcknowledgement(session: BackendSession): session is BackendSession & {
  url: string;
} {
  return (
    session.labels[RUNTIME_LABELS.reapIfUnacknowledged] === 'true' &&
    session.status === 'running' &&
    session.engineState === 'running' &&
    session.url !== undefined
  );
}

/**
 * Waits, in milliseconds, before each new attempt to record a client's fetch that the
 * agent-server did not answer (see {@link acknowledgeSession}); after the last one it gives up
 * and logs a warning. 14 s in all, well inside the reaping's grace for unacknowledged starts.
 */
export const ACTIVITY_RETRY_DELAYS_MS: readonly number[] = [1000, 3000, 10_000];

/**
 * Records that a client fetched `session` (`GET /sessions/{id}`, a repeated `/start`,
 * `/resume`), so that the reaping of unacknowledged starts spares it. Labels cannot change
 * after creation, so the record is the session's own agent-server: its `/server_info` is read
 * with the session key and, unless it already shows an acknowledgement, one keyed request that
 * counts as activity is made — at once when the agent-server has been up for a second, else a
 * second later in the background (activity within its first second would not show). A record
 * the agent-server did not answer is tried again in the background after each of
 * {@link ACTIVITY_RETRY_DELAYS_MS}; a refused one is not. Answers the session marked `answered`
 * when its agent-server answered (it is `ready` without another probe); as it is when it did not,
 * or needs no acknowledgement.
 *
 * Every way a client gets a session's key passes here, so this is also where a warm pool claim
 * cut short by a crash is finished (`initClaimedSession`): the key handed out then works, and the
 * fetch counts as the activity the claim would have recorded.
 */
export async function acknowledgeSession(
  context: RuntimeApiContext,
  session: BackendSession,
): Promise<BackendSession> {
  const fields = sessionLabelFields(session.labels);
  if (!fields) return session;
  const key = sessionKeyOf(context.options.sessionKeySecret, fields);
  const probe = {
    timeoutMs: context.options.readinessTimeoutMs,
    signal: context.signal,
  };
  const retry = (delays: readonly number[], attemptsMade: number) =>
    void recordActivityWithRetries(context, {
      url: session.url ?? '',
      key,
      probe,
      sessionId: fields.sessionId,
      delays,
      attemptsMade,
    });
  if (await initClaimedSession(context, session)) {
    const record = await recordActivity(session.url ?? '', key, probe);
    if (record === 'unanswered') retry(ACTIVITY_RETRY_DELAYS_MS, 1);
    return record === 'recorded' ? { ...session, answered: true } : session;
  }
  if (!awaitsAcknowledgement(session)) return session;
  let clock: AgentServerClock;
  try {
    clock = await fetchServerClock(session.url, key, probe);
  } catch {
    return session;
  }
  if (!isStartAcknowledged(clock)) {
    if (clock.uptimeSeconds < 1) {
      // Up for less than a second: a second from now is past its first.
      retry([1000, ...ACTIVITY_RETRY_DELAYS_MS], 0);
    } else if ((await recordActivity(session.url, key, probe)) === 'unanswered') {
      retry(ACTIVITY_RETRY_DELAYS_MS, 1);
    }
  }
  return { ...session, answered: true };
}

/** Where and how {@link recordActivityWithRetries} records activity. */
interface ActivityTarget {
  url: string;
  key: string;
  probe: ProbeOptions;
  /** For the warning; never the key. */
  sessionId: string;
  /** Waits before each attempt, in milliseconds. */
  delays: readonly number[];
  /** Attempts made before these (for the warning's count). */
  attemptsMade: number;
}

/**
 * Tries to record activity after each of `target.delays` until the agent-server answers
 * (recorded or refused); logs a warning when it never does. Ends quietly when the Runtime API
 * shuts down; never throws.
 */
async function recordActivityWithRetries(
  context: RuntimeApiContext,
  target: ActivityTarget,
): Promise<void> {
  const { url, key, probe, sessionId, delays, attemptsMade } = target;
  try {
    for (const delay of delays) {
      await sleep(delay, undefined, { signal: context.signal });
      if ((await recordActivity(url, key, probe)) !== 'unanswered') return;
    }
  } catch {
    return; // Shutting down.
  }
  context.log.warn(
    { sessionId, attempts: attemptsMade + delays.length },
    "a client's fetch of this session could not be recorded: its agent-server did not answer, so it may be reaped as unacknowledged",
  );
}
