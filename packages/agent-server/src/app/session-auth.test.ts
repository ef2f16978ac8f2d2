import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSessionAuth, createSessionKeyChecker } from './session-auth.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('createSessionKeyChecker', () => {
  it('accepts the configured keys and the keys whose digests are configured, nothing else', () => {
    const check = createSessionKeyChecker(['plain-key'], { hashes: [sha256('hashed-key')] });
    expect(check('plain-key')).toBe(true);
    expect(check('hashed-key')).toBe(true);
    expect(check(sha256('hashed-key'))).toBe(false);
    expect(check('other')).toBe(false);
    expect(check(undefined)).toBe(false);
  });

  it('accepts everything when no key and no digest is configured', () => {
    expect(createSessionKeyChecker([])('anything')).toBe(true);
    expect(createSessionKeyChecker([], { hashes: [sha256('k')] })('anything')).toBe(false);
  });
});

describe('createSessionAuth', () => {
  it('is required as soon as a key or a digest is configured, and checks like the checker', () => {
    const open = createSessionAuth([]);
    expect(open.required).toBe(false);
    expect(open.check('anything')).toBe(true);
    const hashed = createSessionAuth([], { hashes: [sha256('k')] });
    expect(hashed.required).toBe(true);
    expect(hashed.check('k')).toBe(true);
    expect(hashed.check('other')).toBe(false);
    const plain = createSessionAuth(['p']);
    expect(plain.required).toBe(true);
    expect(plain.check('p')).toBe(true);
    expect(plain.check(undefined)).toBe(false);
  });
});
