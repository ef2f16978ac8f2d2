import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import {
  condensationEventWireSchema,
  forkConversationRequestWireSchema,
  interruptEventWireSchema,
} from './conversation-control.js';

describe('conversation control models', () => {
  it("fills OpenHands' defaults of a Condensation and an InterruptEvent", () => {
    const parsed = condensationEventWireSchema.parse({
      kind: 'Condensation',
      id: 'c',
      timestamp: '2026-08-22T10:00:00',
      llm_response_id: 'r',
    });
    expect(parsed).toMatchObject({
      source: 'environment',
      forgotten_event_ids: [],
      summary: null,
      summary_offset: null,
    });
    expect(
      interruptEventWireSchema.parse({
        kind: 'InterruptEvent',
        id: 'i',
        timestamp: '2026-08-22T10:00:00',
      }).source,
    ).toBe('user');
  });

  it('names the bad field of a condensation and of a fork request', () => {
    const base = {
      kind: 'Condensation',
      id: 'c',
      timestamp: '2026-08-22T10:00:00',
      llm_response_id: 'r',
    };
    expectZodIssueAt(
      () => condensationEventWireSchema.parse({ ...base, summary_offset: -1 }),
      ['summary_offset'],
    );
    expect(forkConversationRequestWireSchema.parse({})).toEqual({ reset_metrics: true });
    expectZodIssueAt(() => forkConversationRequestWireSchema.parse({ id: 'x' }), ['id']);
    expectZodIssueAt(
      () => forkConversationRequestWireSchema.parse({ title: 'x'.repeat(201) }),
      ['title'],
    );
  });
});
