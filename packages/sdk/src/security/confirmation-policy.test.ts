import type { ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { heldActions } from '../conversation/confirmation-control.js';
import { NEVER_CONFIRM, parseConfirmationPolicy, shouldConfirm } from './confirmation-policy.js';
import { highestRisk, isAtLeastAsRisky } from './security-risk.js';

describe('confirmation policies', () => {
  it('decide as OpenHands: Never, Always, ConfirmRisky (reflexive threshold, confirm_unknown)', () => {
    const risks = ['LOW', 'MEDIUM', 'HIGH', 'UNKNOWN'] as const;
    const table = (input: unknown) =>
      risks.map((risk) => shouldConfirm(parseConfirmationPolicy(input), risk));
    expect(table(NEVER_CONFIRM)).toEqual([false, false, false, false]);
    expect(table({ kind: 'AlwaysConfirm' })).toEqual([true, true, true, true]);
    expect(table({ kind: 'ConfirmRisky' })).toEqual([false, false, true, true]);
    expect(table({ kind: 'ConfirmRisky', threshold: 'MEDIUM' })).toEqual([false, true, true, true]);
    expect(table({ kind: 'ConfirmRisky', threshold: 'LOW', confirm_unknown: false })).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('fills ConfirmRisky defaults and names the bad part of a policy', () => {
    expect(parseConfirmationPolicy({ kind: 'ConfirmRisky' })).toEqual({
      kind: 'ConfirmRisky',
      threshold: 'HIGH',
      confirm_unknown: true,
    });
    expect(() => parseConfirmationPolicy({ kind: 'Maybe' }, 'policy')).toThrow(
      'policy.kind unknown confirmation policy kind "Maybe"; known kinds: NeverConfirm, AlwaysConfirm, ConfirmRisky',
    );
    expect(() => parseConfirmationPolicy({ kind: 'ConfirmRisky', threshold: 'UNKNOWN' })).toThrow(
      /confirmationPolicy\.threshold must be LOW, MEDIUM or HIGH/,
    );
  });

  it('orders risks, refusing to compare UNKNOWN', () => {
    expect(isAtLeastAsRisky('HIGH', 'HIGH')).toBe(true);
    expect(isAtLeastAsRisky('LOW', 'MEDIUM')).toBe(false);
    expect(() => isAtLeastAsRisky('UNKNOWN', 'LOW')).toThrow(RangeError);
    expect(highestRisk([])).toBe('LOW');
    expect(highestRisk(['LOW', 'HIGH', 'MEDIUM'])).toBe('HIGH');
  });
});

describe('heldActions', () => {
  const base = { timestamp: '2026-01-01T00:00:00', source: 'agent' as const, thought: [] };
  const action = (id: string, response: string): ConversationEventWire => ({
    ...base,
    kind: 'ActionEvent',
    id,
    tool_name: 'terminal',
    tool_call_id: `call-${id}`,
    tool_call: { id: `call-${id}`, name: 'terminal', arguments: '{}', origin: 'completion' },
    llm_response_id: response,
    action: { kind: 'TerminalAction', command: 'ls' },
  });
  const answered = (id: string): ConversationEventWire => ({
    kind: 'AgentErrorEvent',
    id: `error-${id}`,
    timestamp: base.timestamp,
    source: 'agent',
    error: 'x',
    tool_name: 'terminal',
    tool_call_id: `call-${id}`,
  });

  it('are the unanswered actions of the last response, only while waiting', () => {
    const events = [action('a', 'r1'), action('b', 'r2'), action('c', 'r2'), answered('b')];
    expect(heldActions('waiting_for_confirmation', events).map((event) => event.id)).toEqual(['c']);
    expect(heldActions('paused', events)).toEqual([]);
    expect(heldActions('waiting_for_confirmation', [])).toEqual([]);
    // An older response's unanswered action is not held.
    expect(
      heldActions('waiting_for_confirmation', [
        action('a', 'r1'),
        action('b', 'r2'),
        answered('b'),
      ]),
    ).toEqual([]);
  });
});
