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
 * secret, in a domain of its own (no session key can equal one). A warm sandbox starts before
 * any session id is known, so its key is bound to the sandbox instead; a sandbox serves one
 * session ever, and its key is handed out only to that session, once it claimed it.
 */
export function deriveSandboxKey(secret: string, runtimeId: string, nonce: string): string {
  return createHmac('sha256', secret)
    .update(`agent-workspace sandbox key\0${runtimeId}\0${nonce}`)
    .digest('hex');
}

/** The agent-server key of a session from its label fields: a sandbox key when it was pooled. */
export function sessionKeyOf(
  secret: string,
  fields: Pick<SessionLabelFields, 'sessionId' | 'runtimeId' | 'keyNonce' | 'pooled'>,
): string {
  return fields.pooled
    ? deriveSandboxKey(secret, fields.runtimeId, fields.keyNonce)
    : deriveSessionKey(secret, fields.sessionId, fields.keyNonce);
}

/** SHA-256 (hex) of a session key: what the agent-server checks keys against. */
export function sessionKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
