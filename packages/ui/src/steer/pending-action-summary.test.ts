import type { ActionEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { actionArguments, MAX_ARGUMENTS_CHARS, riskOf } from './pending-action-summary.js';

function actionEvent(overrides: Partial<ActionEventWire>): ActionEventWire {
  return {
    kind: 'ActionEvent',
    id: 'a1',
    timestamp: '2026-11-27T07:11:03.361000Z',
    source: 'agent',
    thought: [],
    action: { kind: 'TerminalAction', command: 'touch a.txt', is_input: false, timeout: null },
    tool_name: 'terminal',
    tool_call_id: 'call_0_0',
    tool_call: {
      id: 'call_0_0',
      name: 'terminal',
      arguments: '{"command":"touch a.txt"}',
      origin: 'completion',
    },
    llm_response_id: 'scripted-0',
    ...overrides,
  } as ActionEventWire;
}

describe('riskOf', () => {
  it("is the event's risk, UNKNOWN when it has none", () => {
    expect(riskOf(actionEvent({ security_risk: 'HIGH' }))).toBe('HIGH');
    expect(riskOf(actionEvent({}))).toBe('UNKNOWN');
  });
});

describe('actionArguments', () => {
  it("lists the action's fields but kind and nulls", () => {
    expect(actionArguments(actionEvent({}))).toBe('command: "touch a.txt", is_input: false');
  });

  it('falls back to the raw arguments when the call is no action', () => {
    expect(actionArguments(actionEvent({ action: null }))).toBe('{"command":"touch a.txt"}');
  });

  it('cuts long arguments', () => {
    const long = actionArguments(
      actionEvent({ action: { kind: 'TerminalAction', command: 'x'.repeat(1000) } }),
    );
    expect(long).toHaveLength(MAX_ARGUMENTS_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
