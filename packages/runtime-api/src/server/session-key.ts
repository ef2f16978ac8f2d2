import { createHash, createHmac } from 'node:crypto';
import type { SessionLabelFields } from '../backend/session-labels.js';

/**
 * The session key of a session: HMAC-SHA256 of its id and nonce under the server's secret. The
 * key is stored nowhere: the sandbox gets only its SHA-256 ({@link sessionKeyHash}), and a
 * restarted server with the same secret derives the same key again.
 */
export function deriveSessionKey(secret: string, sessionId: string, nonce: string): string {
  return createHmac('sha256', secret)
    .update(`agent-workspace session key\0${sessionId}\0${nonce}`)
    .digest('hex');
}

/**
 * The key of a warm pool sandbox: HMAC-SHA256 of its runtime id and nonce under the server's
 * secret, in a domain of its own (no session key can equal one). A warm sandbox starts dormant
 * (`--defer-init`) before any session id is known, with this key's hash as its only key: the
 * key is its init key (`X-Init-API-Key`), used by this server alone and never handed out; the
 * claiming session gets {@link deriveClaimedKey} through `POST /api/init`.
 */
export function deriveSandboxKey(secret: string, runtimeId: string, nonce: string): string {
  return createHmac('sha256', secret)
    .update(`agent-workspace sandbox key\0${runtimeId}\0${nonce}`)
    .digest('hex');
}

/**
 * The key of the session that claimed a warm pool sandbox: HMAC-SHA256 of the session id, the
 * sandbox's runtime id and nonce under the server's secret, in a domain of its own. It exists
 * only once the session id is known (at the claim), the sandbox never holds it before its
 * `POST /api/init` delivers it, and it differs from the sandbox key (the init key), which stops
 * working at init. A restarted server derives it again from the labels and the container name.
 */
export function deriveClaimedKey(
  secret: string,
  sessionId: string,
  runtimeId: string,
  nonce: string,
): string {
  return createHmac('sha256', secret)
    .update(`agent-workspace claimed sandbox key\0${sessionId}\0${runtimeId}\0${nonce}`)
    .digest('hex');
}

/**
 * The agent-server key of a session from its label fields: a session key when it started cold;
 * when it was pooled, a claimed key if its sandbox started dormant (`deferredInit`: the claim's
 * init gave it that key), else the sandbox key it started with (claimed before warm sandboxes
 * started dormant: that key was handed to the session as it was).
 */
export function sessionKeyOf(
  secret: string,
  fields: Pick<
    SessionLabelFields,
    'sessionId' | 'runtimeId' | 'keyNonce' | 'pooled' | 'deferredInit'
  >,
): string {
  const { sessionId, runtimeId, keyNonce } = fields;
  if (!fields.pooled) return deriveSessionKey(secret, sessionId, keyNonce);
  return fields.deferredInit
    ? deriveClaimedKey(secret, sessionId, runtimeId, keyNonce)
    : deriveSandboxKey(secret, runtimeId, keyNonce);
}

/** SHA-256 (hex) of a session key: what the agent-server checks keys against. */
export function sessionKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
