import {
  type ConversationEventWire,
  conversationEventWireSchema,
  type ObservationEventWire,
} from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { EVENT_TOO_LARGE, fitEvent } from './fit-event.js';

const LIMIT = 64 * 1024;

function observation(output: string, shown = 'shown to the model'): ObservationEventWire {
  return {
    kind: 'ObservationEvent',
    id: crypto.randomUUID(),
    timestamp: '2026-01-01T00:00:00.000000Z',
    source: 'environment',
    observation: {
      kind: 'TerminalObservation',
      content: [{ type: 'text', text: shown }],
      is_error: false,
      command: 'cat big',
      output,
    },
    action_id: crypto.randomUUID(),
    tool_name: 'terminal',
    tool_call_id: 'call_1',
  };
}

const bytesOf = (event: ConversationEventWire) => Buffer.byteLength(JSON.stringify(event)) + 1;

describe('fitEvent', () => {
  it('keeps an event that fits as it is', () => {
    const event = observation('small');
    const fitted = fitEvent(event, LIMIT);
    expect(fitted.event).toBe(event);
    expect(fitted.cutBytes).toBe(0);
    expect(fitted.line).toBe(JSON.stringify(event));
    expect(fitted.bytes).toBe(bytesOf(event));
  });

  it('cuts the longest string to fit, keeping its head and tail and saying how much went', () => {
    const output = `HEAD${'x'.repeat(1_000_000)}TAIL`;
    const event = observation(output, 'y'.repeat(10_000));
    const fitted = fitEvent(event, LIMIT);
    expect(fitted.bytes).toBeLessThanOrEqual(LIMIT);
    expect(fitted.bytes).toBe(Buffer.byteLength(fitted.line) + 1);
    expect(JSON.parse(fitted.line)).toEqual(fitted.event);
    expect(conversationEventWireSchema.safeParse(fitted.event).success).toBe(true);
    const cut = (fitted.event as ObservationEventWire).observation;
    const kept = cut.output as string;
    expect(kept.startsWith('HEAD')).toBe(true);
    expect(kept.endsWith('TAIL')).toBe(true);
    const [, head = '', reported, tail = ''] =
      /^(.*?)\n\[\.\.\. (\d+) bytes cut: the event was larger than 65536 bytes \.\.\.\]\n(.*)$/s.exec(
        kept,
      ) ?? [];
    expect(Number(reported)).toBe(
      Buffer.byteLength(output) - Buffer.byteLength(head) - Buffer.byteLength(tail),
    );
    // The shorter text shown to the model was not touched, and the original is unchanged.
    expect(cut.content).toEqual([{ type: 'text', text: 'y'.repeat(10_000) }]);
    expect(event.observation.output).toBe(output);
    expect(fitted.cutBytes).toBe(bytesOf(event) - fitted.bytes);
  });

  it('cuts several strings when one is not enough, and counts multi-byte and escaped text', () => {
    const event = observation('é\n'.repeat(60_000), '"\u0001'.repeat(60_000));
    const fitted = fitEvent(event, LIMIT);
    expect(fitted.bytes).toBeLessThanOrEqual(LIMIT);
    const { observation: cut } = fitted.event as ObservationEventWire;
    expect(cut.output).toMatch(/bytes cut/);
    expect(JSON.stringify(cut.content)).toMatch(/bytes cut/);
    expect(conversationEventWireSchema.safeParse(fitted.event).success).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const fitted = fitEvent(observation('😀'.repeat(200_000)), LIMIT);
    const text = (fitted.event as ObservationEventWire).observation.output as string;
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    expect(text).toMatch(/bytes cut/);
    expect(loneSurrogate.test(text)).toBe(false);
  });

  it('replaces an observation no cut can make fit by an error for the same call, never dropping it', () => {
    const many = Array.from({ length: 20_000 }, (_, index) => `line ${index}`);
    const event = {
      ...observation('small'),
      observation: { ...observation('').observation, many },
    };
    const fitted = fitEvent(event as ConversationEventWire, LIMIT);
    expect(fitted.bytes).toBeLessThanOrEqual(LIMIT);
    expect(fitted.event).toMatchObject({
      kind: 'AgentErrorEvent',
      id: event.id,
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      error: expect.stringMatching(
        /^This ObservationEvent of \d+ bytes was larger than 65536 bytes/,
      ),
    });
    const message: ConversationEventWire = {
      kind: 'MessageEvent',
      id: crypto.randomUUID(),
      timestamp: '2026-01-01T00:00:00.000000Z',
      source: 'user',
      llm_message: {
        role: 'user',
        content: Array.from({ length: 20_000 }, () => ({ type: 'text' as const, text: 'hi' })),
      },
    };
    expect(fitEvent(message, LIMIT).event).toMatchObject({
      kind: 'ConversationErrorEvent',
      code: EVENT_TOO_LARGE,
      detail: expect.stringMatching(/^This MessageEvent of \d+ bytes/),
    });
  });
});
