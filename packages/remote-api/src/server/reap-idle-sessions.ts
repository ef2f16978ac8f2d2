import type { BackendSession } from '../backend/runtime-backend.js';
import { sessionLabelFields } from '../backend/session-labels.js';
import { fetchIdleTime } from './probe-agent-server.js';
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
}

/** A session one reaping pass could not judge or act on (it is left as it was). */
export interface ReapFailure {
  sessionId: string;
  runtimeId: string;
  reason: string;
}

/** What one reaping pass did. */
export interface ReapReport {
  /** Running sessions looked at. */
  checked: number;
  reaped: ReapedSession[];
  failures: ReapFailure[];
}

/**
 * One idle-reaping pass: asks each running session's agent-server for `/server_info` with the
 * session's own key and stops or pauses (`idleAction`) those whose `idle_time` exceeds
 * `idleTimeoutSeconds`, logging one line per reaped session (ids and idle time, never a key).
 * One session's failure is logged and reported and does not stop the pass. Does nothing when
 * `idleTimeoutSeconds` is unset.
 */
export async function reapIdleSessions(context: RuntimeApiContext): Promise<ReapReport> {
  const report: ReapReport = { checked: 0, reaped: [], failures: [] };
  const { idleTimeoutSeconds, idleAction } = context.options;
  if (idleTimeoutSeconds === undefined) return report;
  const sessions = (await context.backend.list({ signal: engineCallSignal(context) })).filter(
    (session) => session.status === 'running' && session.engineState === 'running' && session.url,
  );
  report.checked = sessions.length;
  const queue = [...sessions];
  const worker = async (): Promise<void> => {
    for (let session = queue.shift(); session; session = queue.shift()) {
      await reapOne(context, session, idleTimeoutSeconds, idleAction, report);
    }
  };
  await Promise.all(Array.from({ length: REAP_CONCURRENCY }, worker));
  return report;
}

async function reapOne(
  context: RuntimeApiContext,
  session: BackendSession,
  idleTimeoutSeconds: number,
  action: 'stop' | 'pause',
  report: ReapReport,
): Promise<void> {
  const fields = sessionLabelFields(session.labels);
  if (!fields || !session.url) return;
  const { sessionId, runtimeId } = fields;
  try {
    const key = sessionKeyOf(context.options.sessionKeySecret, fields);
    const idleTimeSeconds = await fetchIdleTime(session.url, key, {
      dispatcher: context.dispatcher,
      timeoutMs: context.options.readinessTimeoutMs,
      signal: context.signal,
    });
    if (idleTimeSeconds <= idleTimeoutSeconds) return;
    if (action === 'stop')
      await context.backend.stop(runtimeId, { signal: engineCallSignal(context) });
    else await context.backend.pause(runtimeId, { signal: engineCallSignal(context) });
    report.reaped.push({ sessionId, runtimeId, idleTimeSeconds, action });
    context.log.info(
      { sessionId, runtimeId, idleTimeSeconds, idleTimeoutSeconds, action },
      `reaped idle session ${sessionId} (${action})`,
    );
  } catch (error) {
    const reason = (error as Error).message;
    report.failures.push({ sessionId, runtimeId, reason });
    context.log.warn({ sessionId, runtimeId, reason }, 'idle check of a session failed');
  }
}
