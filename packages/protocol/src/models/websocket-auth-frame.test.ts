import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { websocketAuthFrameWireSchema } from './websocket-auth-frame.js';

describe('WebsocketAuthFrame', () => {
  it('parses the first-frame auth message', () => {
    const wire = { type: 'auth', session_api_key: 'secret' };
    expect(websocketAuthFrameWireSchema.parse(wire)).toStrictEqual(wire);
  });

  it('rejects other frames at the offending field', () => {
    expectZodIssueAt(
      () => websocketAuthFrameWireSchema.parse({ role: 'user', content: [] }),
      ['type'],
    );
    expectZodIssueAt(
      () => websocketAuthFrameWireSchema.parse({ type: 'auth' }),
      ['session_api_key'],
    );
  });
});
