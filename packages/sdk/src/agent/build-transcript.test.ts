import type { ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { buildTranscript, INTERRUPTED_CALL_RESULT } from './build-transcript.js';

const at = '2026-08-22T10:00:00.000000Z';
let counter = 0;
const base = () => ({ id: `event-${++counter}`, timestamp: at });

const user = (text: string): ConversationEventWire => ({
  kind: 'MessageEvent',
  ...base(),
  source: 'user',
  llm_message: { role: 'user', content: [{ type: 'text', text }] },
});

const action = (callId: string, responseId: string, thought = ''): ConversationEventWire => ({
  kind: 'ActionEvent',
  ...base(),
  source: 'agent',
  thought: thought === '' ? [] : [{ type: 'text', text: thought }],
  action: { kind: 'ShellAction', command: 'ls' },
  tool_name: 'shell',
  tool_call_id: callId,
  tool_call: { id: callId, name: 'shell', arguments: '{"command":"ls"}', origin: 'completion' },
  llm_response_id: responseId,
});

const observation = (callId: string, text: string): ConversationEventWire => ({
  kind: 'ObservationEvent',
  ...base(),
  source: 'environment',
  observation: { kind: 'ShellObservation', content: [{ type: 'text', text }], is_error: false },
  action_id: 'unused',
  tool_name: 'shell',
  tool_call_id: callId,
});

const call = (id: string) => ({ id, name: 'shell', arguments: '{"command":"ls"}' });

describe('buildTranscript', () => {
  it('makes one assistant message per model response, then the results in order', () => {
    const messages = buildTranscript({
      systemPrompt: 'sys',
      events: [
        user('go'),
        action('a', 'r1', 'Two calls.'),
        action('b', 'r1'),
        observation('a', 'A'),
        {
          kind: 'AgentErrorEvent',
          ...base(),
          source: 'agent',
          error: 'bad',
          tool_name: 'shell',
          tool_call_id: 'b',
        },
        {
          kind: 'ConversationStateUpdateEvent',
          ...base(),
          source: 'environment',
          key: 'execution_status',
          value: 'running',
        },
        { kind: 'PauseEvent', ...base(), source: 'user' },
        action('c', 'r2'),
        observation('c', 'C'),
      ],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Two calls.', toolCalls: [call('a'), call('b')] },
      { role: 'tool', content: 'A', toolCallId: 'a', toolName: 'shell' },
      { role: 'tool', content: 'bad', toolCallId: 'b', toolName: 'shell' },
      { role: 'assistant', content: '', toolCalls: [call('c')] },
      { role: 'tool', content: 'C', toolCallId: 'c', toolName: 'shell' },
    ]);
  });

  it('answers calls left without a result, and keeps user messages after pending results', () => {
    const messages = buildTranscript({
      systemPrompt: 'sys',
      events: [
        user('go'),
        action('a', 'r1'),
        action('b', 'r1'),
        user('sent during the calls'),
        observation('a', 'A'),
        action('c', 'r2'),
      ],
    });
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      { role: 'tool', content: 'A', toolCallId: 'a', toolName: 'shell' },
      { role: 'tool', content: INTERRUPTED_CALL_RESULT, toolCallId: 'b', toolName: 'shell' },
      { role: 'user', content: 'sent during the calls' },
      { role: 'assistant', content: '', toolCalls: [call('c')] },
      { role: 'tool', content: INTERRUPTED_CALL_RESULT, toolCallId: 'c', toolName: 'shell' },
    ]);
  });
});
