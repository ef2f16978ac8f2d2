import type { ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { formatEvent } from './format-event.js';

const base = { id: 'e1', timestamp: '2026-11-27T00:00:00' };
const plain = { color: false };

describe('formatEvent', () => {
  it('shows a rejected action with its reason, an interrupt and a condensation', () => {
    const rejected = {
      ...base,
      kind: 'UserRejectObservation',
      source: 'user',
      action_id: 'a1',
      tool_name: 'terminal',
      tool_call_id: 'c1',
      rejection_reason: 'too risky',
      rejection_source: 'user',
    } as ConversationEventWire;
    expect(formatEvent(rejected, plain)).toEqual(['✗ terminal  rejected: too risky']);
    const interrupted = {
      ...base,
      kind: 'InterruptEvent',
      source: 'user',
    } as ConversationEventWire;
    expect(formatEvent(interrupted, plain)).toEqual(['interrupted']);
    const condensed = {
      ...base,
      kind: 'Condensation',
      source: 'environment',
      forgotten_event_ids: ['x', 'y', 'z'],
      summary: null,
      summary_offset: null,
      llm_response_id: 'r1',
    } as ConversationEventWire;
    expect(formatEvent(condensed, plain)).toEqual(['condensed: 3 events forgotten']);
  });

  it('gives no lines for a condensation request or a state update other than the status', () => {
    const request = { ...base, kind: 'CondensationRequest', source: 'environment' };
    expect(formatEvent(request as ConversationEventWire, plain)).toEqual([]);
    const stats = {
      ...base,
      kind: 'ConversationStateUpdateEvent',
      source: 'environment',
      key: 'stats',
      value: {},
    };
    expect(formatEvent(stats as ConversationEventWire, plain)).toEqual([]);
  });
});
