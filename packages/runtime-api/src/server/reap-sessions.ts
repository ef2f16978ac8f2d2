import type { BackendSession } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, sessionLabelFields } from '../backend/session-labels.js';
import { awaitsAcknowledgement, isStartAcknowledged } from './acknowledge-session.js';
import { fetchServerClock } from './probe-agent-server.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';
import { sessionKeyOf } from './session-key.js';

/** Most sessions one reaping pass probes at once. */
export const REAP_CONCURRENCY = 8;

/** A session one reaping pass stopped or paused. */
export interface ReapedSession {
  sessionId: string;
  runtimeId: string;
  /** `idle_time` its agent-server reported, in seconds. */
  idleTimeSeconds: number;
  action: 'stop' | 'pause';
  /**
   * `idle`: idle past `idleTimeoutSeconds`; `unacknowledged`: no client fetched or used it
   * within `unacknowledgedStartGraceSeconds` of its start (always stopped).
   */
  reason: 'idle' | 'unacknowledged';
}

/** A session one reaping pass could not judge or act on (it is left as it was). */
export interface ReapFailure {
  sessionId: string;
  runtimeId: string;
  reason: string;
}

/** What one reaping pass did. */
export interface ReapReport {
  /** Running sessions whose agent-server was asked. */
  checked: number;
  reaped: ReapedSession[];
  failures: ReapFailure[];
}

/**
 * One reaping pass over the running sessions, asking each one's agent-server for `/server_info`
 * with the session's own key (which counts as no activity):
 *
 * - **Unacknowledged starts**: a session started cold (`RUNTIME_LABELS.reapIfUnacknowledged`)
 *   at least `unacknowledgedStartGraceSeconds` ago, whose agent-server has run that long without
 *   showing any acknowledgement — no client used it, no fetch was recorded
 *   (`acknowledgeSession`) — is stopped: its `/start` answer never reached a client (the server
 *   was killed mid-start, the client went away), so nobody knows its key. Only such sessions are
 *   asked when idle reaping is off.
 * - **Idle sessions** (with `idleTimeoutSeconds`): one whose `idle_time` exceeds it is stopped, or
 *   paused with `idleAction: 'pause'`.
 *
 * One line is logged per reaped session (ids and times, never a key); one session's failure is
 * logged and reported and does not stop the pass.
 */
export async function reapSessions(context: RuntimeApiContext): Promise<ReapReport> {
  const report: ReapReport = { checked: 0, reaped: [], failures: [] };
  const now = Date.now();
  const { idleTimeoutSeconds } = context.options;
  const sessions = (await context.backend.list({ signal: engineCallSignal(context) })).filter(
    (session) =>
      session.status === 'running' &&
      session.engineState === 'running' &&
      session.url &&
      (idleTimeoutSeconds !== undefined || pastGrace(context, session, now)),
  );
  report.checked = sessions.length;
  const queue = [...sessions];
  const worker = async (): Promise<void> => {
    for (let session = queue.shift(); session; session = queue.shift()) {
      await reapOne(context, session, pastGrace(context, session, now), report);
    }
  };
  await Promise.all(Array.from({ length: REAP_CONCURRENCY }, worker));
  context.log.debug(
    { checked: report.checked, reaped: report.reaped.length, failures: report.failures.length },
    'reaping pass done',
  );
  return report;
}

/** True for a session awaiting acknowledgement that started at least the grace ago. */
function pastGrace(context: RuntimeApiContext, session: BackendSession, now: number): boolean {
  const createdAt = Date.parse(session.labels[RUNTIME_LABELS.createdAt] ?? '');
  const graceMs = context.options.unacknowledgedStartGraceSeconds * 1000;
  return awaitsAcknowledgement(session) && now - createdAt >= graceMs;
}

async function reapOne(
  context: RuntimeApiContext,
  session: BackendSession,
  graceOver: boolean,
  report: ReapReport,
): Promise<void> {
  const fields = sessionLabelFields(session.labels);
  if (!fields || !session.url) return;
  const { sessionId, runtimeId } = fields;
  const { idleTimeoutSeconds, idleAction, unacknowledgedStartGraceSeconds } = context.options;
  try {
    const key = sessionKeyOf(context.options.sessionKeySecret, fields);
    const clock = await fetchServerClock(session.url, key, {
      timeoutMs: context.options.readinessTimeoutMs,
      signal: context.signal,
    });
    const idleTimeSeconds = clock.idleTimeSeconds;
    let reaped: ReapedSession;
    if (
      graceOver &&
      clock.uptimeSeconds >= unacknowledgedStartGraceSeconds &&
      !isStartAcknowledged(clock)
    ) {
      reaped = { sessionId, runtimeId, idleTimeSeconds, action: 'stop', reason: 'unacknowledged' };
    } else if (idleTimeoutSeconds !== undefined && idleTimeSeconds > idleTimeoutSeconds) {
      reaped = { sessionId, runtimeId, idleTimeSeconds, action: idleAction, reason: 'idle' };
    } else {
      return;
    }
    const call = { signal: engineCallSignal(context) };
    if (reaped.action === 'stop') await context.backend.stop(runtimeId, call);
    else await context.backend.pause(runtimeId, call);
    report.reaped.push(reaped);
    context.log.info(
      { ...reaped, idleTimeoutSeconds, unacknowledgedStartGraceSeconds },
      reaped.reason === 'idle'
        ? `reaped idle session ${sessionId} (${reaped.action})`
        : `reaped session ${sessionId}: no client fetched or used it since its start`,
    );
  } catch (error) {
    const reason = (error as Error).message;
    report.failures.push({ sessionId, runtimeId, reason });
    context.log.warn({ sessionId, runtimeId, reason }, 'reaping check of a session failed');
  }
}
