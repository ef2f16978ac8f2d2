import { describe, expect, it } from 'vitest';
import {
  MAX_SECRET_VALUE_BYTES,
  secretNameProblem,
  secretsMapWireSchema,
  updateSecretsRequestWireSchema,
} from './conversation-secrets.js';

describe('conversation secrets wire shapes', () => {
  it('normalises the forms OpenHands accepts', () => {
    const parsed = updateSecretsRequestWireSchema.parse({
      secrets: {
        PLAIN: 'a',
        VALUE: { value: 'b' },
        STATIC: { kind: 'StaticSecret', value: 'c', description: 'd' },
        NONE: { kind: 'StaticSecret' },
        LOOKUP: { url: 'https://example.test/s' },
        LONG: { kind: 'openhands__sdk__secret__secrets__StaticSecret-Input__1', value: 'e' },
      },
    });
    expect(parsed.secrets).toEqual({
      PLAIN: { kind: 'StaticSecret', value: 'a' },
      VALUE: { kind: 'StaticSecret', value: 'b' },
      STATIC: { kind: 'StaticSecret', value: 'c', description: 'd' },
      NONE: { kind: 'StaticSecret', value: null },
      LOOKUP: { kind: 'LookupSecret', url: 'https://example.test/s', headers: {} },
      LONG: { kind: 'StaticSecret', value: 'e' },
    });
  });

  it('names reserved and malformed names', () => {
    expect(secretNameProblem('GITHUB_TOKEN')).toBeUndefined();
    expect(secretNameProblem('_x1')).toBeUndefined();
    expect(secretNameProblem('Path')).toMatch(/reserved/);
    expect(secretNameProblem('LD_AUDIT')).toMatch(/LD_/);
    expect(secretNameProblem('oh_anything')).toMatch(/OH_/);
    expect(secretNameProblem('9A')).toMatch(/environment variable name/);
    expect(secretNameProblem('A'.repeat(129))).toMatch(/at most 128/);
  });

  it('bounds values in UTF-8 bytes and refuses unknown kinds and fields', () => {
    const at = 'x'.repeat(MAX_SECRET_VALUE_BYTES);
    expect(secretsMapWireSchema.safeParse({ A: at }).success).toBe(true);
    expect(secretsMapWireSchema.safeParse({ A: `${at}x` }).success).toBe(false);
    expect(
      secretsMapWireSchema.safeParse({ A: 'é'.repeat(MAX_SECRET_VALUE_BYTES / 2 + 1) }).success,
    ).toBe(false);
    expect(secretsMapWireSchema.safeParse({ A: { kind: 'Other', value: 'x' } }).success).toBe(
      false,
    );
    expect(
      secretsMapWireSchema.safeParse({ A: { kind: 'StaticSecret', value: 'x', y: 1 } }).success,
    ).toBe(false);
    expect(
      secretsMapWireSchema.safeParse({ A: { kind: 'LookupSecret', url: 'ftp://h/x' } }).success,
    ).toBe(false);
  });
});
