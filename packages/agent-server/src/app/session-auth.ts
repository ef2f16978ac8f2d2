import { createHash, timingSafeEqual } from 'node:crypto';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';

/** The session key header as Node presents it (lower case). */
export const SESSION_KEY_HEADER_NAME = SESSION_API_KEY_HEADER.toLowerCase();

/** Options of {@link createSessionKeyChecker}. */
export interface SessionKeyCheckerOptions {
  /** SHA-256 digests (hex) of more accepted keys. */
  hashes?: readonly string[] | undefined;
}

/**
 * Returns a checker for the configured keys and key digests. Comparison is constant-time: every
 * candidate is hashed and compared with every key's hash, so neither the key length nor a
 * matching prefix changes the timing. With no keys configured everything is accepted.
 */
export function createSessionKeyChecker(
  keys: readonly string[],
  { hashes = [] }: SessionKeyCheckerOptions = {},
): (candidate: unknown) => boolean {
  const digests = [
    ...keys.map((key) => createHash('sha256').update(key).digest()),
    ...hashes.map((hash) => Buffer.from(hash, 'hex')),
  ];
  if (digests.length === 0) return () => true;
  return (candidate) => {
    if (typeof candidate !== 'string') return false;
    const digest = createHash('sha256').update(candidate).digest();
    let match = false;
    for (const expected of digests) match = timingSafeEqual(digest, expected) || match;
    return match;
  };
}

/** The server's session-key check, as routes and sockets use it. */
export interface SessionAuth {
  /** True when a session key is required (some key or digest is configured). */
  required: boolean;
  /** Constant-time check of a candidate key; see {@link createSessionKeyChecker}. */
  check: (candidate: unknown) => boolean;
}

/** The {@link SessionAuth} of the configured keys and key digests. */
export function createSessionAuth(
  keys: readonly string[],
  options: SessionKeyCheckerOptions = {},
): SessionAuth {
  return {
    required: keys.length + (options.hashes?.length ?? 0) > 0,
    check: createSessionKeyChecker(keys, options),
  };
}
