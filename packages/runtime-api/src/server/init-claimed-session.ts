import type { BackendSession } from '../backend/runtime-backend.js';
import { sessionLabelFields } from '../backend/session-labels.js';
import type { RuntimeApiContext } from './runtime-api-context.js';
import { deriveSandboxKey, sessionKeyOf } from './session-key.js';
import { initWarmSandbox, warmSandboxInitState } from './warm-sandbox-init.js';

/**
 * Finishes a warm pool claim that was cut short: a session claimed from a dormant warm sandbox
 * (`deferredInit` label) is bound to its session by the claim's rename before the claim's
 * `POST /api/init` gives its agent-server the session's key, so a server that died between the
 * two left a session whose agent-server is still `dormant` and refuses that key. When `session`
 * is such a one (running, `GET /api/init` answers `dormant`, and no claim of this server is
 * under way for it), it is initialized now, with the init key and the claimed key both derived
 * from its labels as the claim derives them. Answers `true` when this call initialized it;
 * `false` for any other session (cold, swarm, initialized, paused, not answering) and when init
 * fails — a racing init (another server finishing the same claim) gave it the same key, and any
 * other failure shows as the key being refused. Never throws; logs no key.
 */
export async function initClaimedSession(
  context: RuntimeApiContext,
  session: BackendSession,
): Promise<boolean> {
  const fields = sessionLabelFields(session.labels);
  const { url } = session;
  if (!fields?.deferredInit || url === undefined) return false;
  if (session.status !== 'running' || session.engineState !== 'running') return false;
  const { sessionId, runtimeId, keyNonce } = fields;
  if (context.warmPool?.isClaiming(runtimeId)) return false;
  const probe = { timeoutMs: context.options.readinessTimeoutMs, signal: context.signal };
  const state = await warmSandboxInitState(url, probe).catch(() => undefined);
  if (state !== 'dormant') return false;
  const secret = context.options.sessionKeySecret;
  const initKey = deriveSandboxKey(secret, runtimeId, keyNonce);
  try {
    await initWarmSandbox(url, initKey, sessionKeyOf(secret, fields), probe);
  } catch (error) {
    context.log.warn(
      { sessionId, runtimeId, reason: (error as Error).message },
      'could not initialize a claimed sandbox left dormant',
    );
    return false;
  }
  context.log.info(
    { sessionId, runtimeId },
    'initialized a claimed sandbox left dormant by an interrupted claim',
  );
  return true;
}
