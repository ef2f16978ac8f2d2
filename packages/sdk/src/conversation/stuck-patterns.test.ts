import type { ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { detectStuck } from './stuck-detector.js';
import { isAlternating, isMonologue } from './stuck-patterns.js';

const at = '2026-01-01T00:00:00';
let n = 0;
const id = () => `e${++n}`;
const message = (source: 'user' | 'agent', text: string): ConversationEventWire =>
  ({
    kind: 'MessageEvent',
    id: id(),
    timestamp: at,
    source,
    llm_message: {
      role: source === 'user' ? 'user' : 'assistant',
      content: [{ type: 'text', text }],
    },
  }) as ConversationEventWire;
/** One tool round: the action (by command) and its observation (by output). */
const round = (command: string, output: string): ConversationEventWire[] => {
  const call = id();
  return [
    {
      kind: 'ActionEvent',
      id: id(),
      timestamp: at,
      source: 'agent',
      thought: [],
      tool_name: 'terminal',
      tool_call_id: call,
      tool_call: {
        id: call,
        name: 'terminal',
        arguments: JSON.stringify({ command }),
        origin: 'completion',
      },
      llm_response_id: id(),
      action: { kind: 'TerminalAction', command },
    },
    {
      kind: 'ObservationEvent',
      id: id(),
      timestamp: at,
      source: 'environment',
      tool_name: 'terminal',
      tool_call_id: call,
      action_id: 'x',
      observation: { kind: 'TerminalObservation', content: [{ type: 'text', text: output }] },
    },
  ] as ConversationEventWire[];
};
const stateUpdate = (): ConversationEventWire =>
  ({
    kind: 'ConversationStateUpdateEvent',
    id: id(),
    timestamp: at,
    source: 'environment',
    key: 'execution_status',
    value: 'running',
  }) as ConversationEventWire;

describe('monologue (OpenHands threshold 3)', () => {
  it('is stuck after three agent messages in a row, status updates between them', () => {
    const events = [
      message('user', 'hi'),
      message('agent', 'thinking'),
      stateUpdate(),
      message('agent', 'thinking'),
      message('agent', 'thinking'),
    ];
    expect(isMonologue(events)).toBe(true);
    expect(detectStuck(events)?.pattern).toBe('monologue');
  });

  it('is not stuck with two, or when an action or a user message breaks the run', () => {
    expect(isMonologue([message('user', 'hi'), message('agent', 'a'), message('agent', 'b')])).toBe(
      false,
    );
    const broken = [
      message('agent', 'a'),
      message('agent', 'b'),
      ...round('ls', 'x'),
      message('agent', 'c'),
    ];
    expect(isMonologue(broken)).toBe(false);
    expect(
      isMonologue([
        message('agent', 'a'),
        message('agent', 'b'),
        message('user', 'go on'),
        message('agent', 'c'),
      ]),
    ).toBe(false);
    expect(detectStuck(broken)).toBeUndefined();
  });
});

describe('alternating pattern (OpenHands threshold 6)', () => {
  const cycle = (times: number) =>
    Array.from({ length: times }, (_, i) =>
      i % 2 === 0 ? round('cd a', 'in a') : round('cd b', 'in b'),
    ).flat();

  it('is stuck after six actions going A, B, A, B, ... with the same results', () => {
    const events = [message('user', 'go'), ...cycle(6)];
    expect(isAlternating(events)).toBe(true);
    expect(detectStuck(events)).toMatchObject({ pattern: 'alternating_pattern' });
  });

  it('is not stuck with five, with a result that changes, or across a user message', () => {
    expect(isAlternating([message('user', 'go'), ...cycle(5)])).toBe(false);
    const changing = [...cycle(5), ...round('cd b', 'b is gone')];
    expect(isAlternating(changing)).toBe(false);
    expect(detectStuck(changing)).toBeUndefined();
    expect(isAlternating([...cycle(3), message('user', 'try again'), ...cycle(3)])).toBe(false);
  });
});

describe('the two loops we had', () => {
  it('still reports the action-observation loop first, at the conversation threshold', () => {
    const events = [
      message('user', 'go'),
      ...round('ls', 'x'),
      ...round('ls', 'x'),
      ...round('ls', 'x'),
    ];
    expect(detectStuck(events, 3)?.pattern).toBe('action_observation_loop');
    expect(detectStuck(events, 4)).toBeUndefined();
  });
});
