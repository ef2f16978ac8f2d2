import { describe, expect, it } from 'vitest';
import {
  deferredInitDetail,
  initRequestWireSchema,
  MAX_INIT_SESSION_API_KEYS,
} from './server-init.js';

describe('initRequestWireSchema', () => {
  it('takes session keys or nothing', () => {
    expect(initRequestWireSchema.parse({})).toEqual({});
    expect(initRequestWireSchema.parse({ session_api_keys: null })).toEqual({
      session_api_keys: null,
    });
    expect(initRequestWireSchema.parse({ session_api_keys: ['k'] })).toEqual({
      session_api_keys: ['k'],
    });
  });

  it('refuses unknown fields, an empty list and too many keys, naming the field', () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ conversations_path: '/x' }, []],
      [{ session_api_keys: [] }, ['session_api_keys']],
      [{ session_api_keys: [''] }, ['session_api_keys', 0]],
      [
        { session_api_keys: Array.from({ length: MAX_INIT_SESSION_API_KEYS + 1 }, () => 'k') },
        ['session_api_keys'],
      ],
    ];
    for (const [body, path] of cases) {
      const result = initRequestWireSchema.safeParse(body);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(path);
    }
  });
});

it('words the dormant 503 as OpenHands does', () => {
  expect(deferredInitDetail('dormant')).toBe(
    "server is in deferred-init state 'dormant'; call POST /api/init first",
  );
});
