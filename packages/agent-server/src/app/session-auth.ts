import { createHash, timingSafeEqual } from 'node:crypto';

/** Header carrying the session API key on HTTP requests. */
export const SESSION_API_KEY_HEADER = 'x-session-api-key';

/**
 * Returns a checker for the configured keys. Comparison is constant-time: every candidate is
 * hashed and compared with every key's hash, so neither the key length nor a matching prefix
 * changes the timing. With no keys configured everything is accepted.
 */
export function createSessionKeyChecker(keys: readonly string[]): (candidate: unknown) => boolean {
  const digests = keys.map((key) => createHash('sha256').update(key).digest());
  if (digests.length === 0) return () => true;
  return (candidate) => {
    if (typeof candidate !== 'string') return false;
    const digest = createHash('sha256').update(candidate).digest();
    let match = false;
    for (const expected of digests) match = timingSafeEqual(digest, expected) || match;
    return match;
  };
}
