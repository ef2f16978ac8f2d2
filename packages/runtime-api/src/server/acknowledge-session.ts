import { setTimeout as sleep } from 'node:timers/promises';
import type { BackendSession } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, sessionLabelFields } from '../backend/session-labels.js';
import { initClaimedSession } from './init-claimed-session.js';
import { type AgentServerClock, fetchServerClock, recordActivity } from './probe-agent-server.js';
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
 * Records that a client fetched `session` (`GET /sessions/{id}`, a repeated `/start`,
 * `/resume`), so that the reaping of unacknowledged starts spares it. Labels cannot change
 * after creation, so the record is the session's own agent-server: its `/server_info` is read
 * with the session key and, unless it already shows an acknowledgement, one keyed request that
 * counts as activity is made — at once when the agent-server has been up for a second, else a
 * second later in the background (activity within its first second would not show). Answers the
 * session marked `answered` when its agent-server answered (it is `ready` without another
 * probe); as it is when it did not, or needs no acknowledgement.
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
  if (await initClaimedSession(context, session)) {
    const answered = await recordActivity(session.url ?? '', key, probe);
    return answered ? { ...session, answered: true } : session;
  }
  if (!awaitsAcknowledgement(session)) return session;
  let clock: AgentServerClock;
  try {
    clock = await fetchServerClock(session.url, key, probe);
  } catch {
    return session;
  }
  if (!isStartAcknowledged(clock)) {
    if (clock.uptimeSeconds >= 1) {
      await recordActivity(session.url, key, probe);
    } else {
      // Up for less than a second: a second from now is past its first.
      void sleep(1000, undefined, { signal: context.signal })
        .then(() => recordActivity(session.url, key, probe))
        .catch(() => {});
    }
  }
  return { ...session, answered: true };
}
