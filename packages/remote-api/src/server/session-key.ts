import { createHash, createHmac } from 'node:crypto';

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

/** SHA-256 (hex) of a session key: what the agent-server checks keys against. */
export function sessionKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
