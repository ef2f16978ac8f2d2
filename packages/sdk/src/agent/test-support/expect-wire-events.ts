import { type ConversationEventWire, conversationEventWireSchema } from '@agent-workspace/protocol';
import { expect } from 'vitest';

/** Asserts each event survives JSON and parses back, unchanged, with the protocol schema. */
export function expectWireEvents(events: Iterable<ConversationEventWire>): void {
  for (const event of events) {
    const json: unknown = JSON.parse(JSON.stringify(event));
    expect(conversationEventWireSchema.parse(json)).toStrictEqual(event);
  }
}
