import type { RuntimePodStatus, RuntimeSessionWire } from '@agent-workspace/protocol';
import type { BackendSession } from '../backend/runtime-backend.js';
import { sessionLabelFields } from '../backend/session-labels.js';
import { probeHealth } from './probe-agent-server.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';
import { sessionKeyOf } from './session-key.js';

/** Log lines of a failed sandbox put into its `message`. */
export const FAILURE_LOG_LINES = 50;

/** Longest `message`, in characters (its end is kept: the last log lines tell most). */
export const MAX_MESSAGE_CHARS = 8192;

/** Options of {@link describeSession}. */
export interface DescribeSessionOptions {
  /** Include `session_api_key` (single-session answers; never lists). */
  withKey: boolean;
}

/**
 * The wire view of a backend session: its fields from its labels, the session key derived from
 * the server's secret and the nonce label (when asked for), and `pod_status` — `ready` only when
 * its agent-server answers `/health` within `readinessTimeoutMs` (or answered a keyed request
 * moments ago: `BackendSession.answered`); `pending` while the engine
 * prepares it or it is paused; the engine's fatal state with the engine's message and the
 * sandbox's last log lines otherwise. `undefined` for a sandbox whose labels are incomplete
 * (not one this server made).
 */
export async function describeSession(
  context: RuntimeApiContext,
  session: BackendSession,
  { withKey }: DescribeSessionOptions,
): Promise<RuntimeSessionWire | undefined> {
  const fields = sessionLabelFields(session.labels);
  if (!fields) return undefined;
  const podStatus = await podStatusOf(context, session);
  const message = isFatal(podStatus)
    ? await failureMessage(context, fields.runtimeId, session.message)
    : session.message;
  return {
    runtime_id: fields.runtimeId,
    session_id: fields.sessionId,
    url: session.url ?? '',
    ...(withKey && {
      session_api_key: sessionKeyOf(context.options.sessionKeySecret, fields),
    }),
    status: session.status,
    pod_status: podStatus,
    image: fields.image,
    resource_factor: fields.resourceFactor,
    created_at: fields.createdAt,
    ...(message ? { message } : {}),
  };
}

function isFatal(podStatus: RuntimePodStatus): boolean {
  return podStatus === 'failed' || podStatus === 'unknown' || podStatus === 'crashloopbackoff';
}

async function podStatusOf(
  context: RuntimeApiContext,
  session: BackendSession,
): Promise<RuntimePodStatus> {
  if (session.engineState !== 'running' && session.engineState !== 'pending') {
    return session.engineState;
  }
  if (session.status === 'stopped') return 'failed';
  if (session.engineState === 'pending' || session.status === 'paused') return 'pending';
  if (!session.url) return 'running';
  if (session.answered) return 'ready';
  const ready = await probeHealth(session.url, {
    timeoutMs: context.options.readinessTimeoutMs,
    signal: context.signal,
  });
  return ready ? 'ready' : 'running';
}

/** The engine's message and the sandbox's last log lines, at most {@link MAX_MESSAGE_CHARS}. */
async function failureMessage(
  context: RuntimeApiContext,
  runtimeId: string,
  engineMessage: string | undefined,
): Promise<string> {
  let logs = '';
  try {
    logs = await context.backend.logs(runtimeId, {
      tailLines: FAILURE_LOG_LINES,
      signal: engineCallSignal(context),
    });
  } catch (error) {
    context.log.warn({ runtimeId, err: error }, 'could not read the logs of a failed sandbox');
  }
  const parts = [engineMessage ?? 'the sandbox is not running'];
  if (logs.trim()) parts.push(`last log lines:\n${logs.trimEnd()}`);
  const message = parts.join('\n');
  return message.length > MAX_MESSAGE_CHARS
    ? `…${message.slice(message.length - MAX_MESSAGE_CHARS + 1)}`
    : message;
}
