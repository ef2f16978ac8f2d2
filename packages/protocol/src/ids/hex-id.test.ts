import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { hexIdSchema, newHexId, normalizeHexId } from './hex-id.js';

describe('hex ids', () => {
  it('normalises dashed and upper-case UUIDs to 32 lowercase hex', () => {
    expect(normalizeHexId('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(
      '0f8fad5bd9cb469fa16570867728950e',
    );
    expect(normalizeHexId('0f8fad5bd9cb469fa16570867728950e')).toBe(
      '0f8fad5bd9cb469fa16570867728950e',
    );
  });

  it('rejects ids that are neither form', () => {
    for (const bad of [
      '0f8fad5bd9cb469fa16570867728950',
      '0f8fad5b-d9cb469f-a165-70867728950e',
      'g'.repeat(32),
    ]) {
      expect(() => normalizeHexId(bad)).toThrow(ZodError);
    }
  });

  it('the strict schema takes only 32 lowercase hex', () => {
    expect(hexIdSchema.safeParse('0f8fad5bd9cb469fa16570867728950e').success).toBe(true);
    expect(hexIdSchema.safeParse('0F8FAD5BD9CB469FA16570867728950E').success).toBe(false);
    expect(hexIdSchema.safeParse('0f8fad5b-d9cb-469f-a165-70867728950e').success).toBe(false);
  });

  it('creates distinct random v4 ids in the strict form', () => {
    const a = newHexId();
    const b = newHexId();
    expect(hexIdSchema.parse(a)).toBe(a);
    expect(a).not.toBe(b);
    expect(a[12]).toBe('4');
  });
});
