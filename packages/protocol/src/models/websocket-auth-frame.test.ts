import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { websocketAuthFrameFromWire, websocketAuthFrameToWire } from './websocket-auth-frame.js';

describe('WebsocketAuthFrame', () => {
  it('parses and round-trips the first-frame auth message', () => {
    const wire = { type: 'auth', session_api_key: 'secret' };
    expect(websocketAuthFrameFromWire(wire)).toEqual({ type: 'auth', sessionApiKey: 'secret' });
    expect(websocketAuthFrameToWire(websocketAuthFrameFromWire(wire))).toStrictEqual(wire);
  });

  it('rejects other frames at the offending field', () => {
    expectZodIssueAt(() => websocketAuthFrameFromWire({ role: 'user', content: [] }), ['type']);
    expectZodIssueAt(() => websocketAuthFrameFromWire({ type: 'auth' }), ['session_api_key']);
  });
});
