import type { ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { buildTranscript, INTERRUPTED_CALL_RESULT, TranscriptBuilder } from './build-transcript.js';

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

  it('answers calls still pending at the end before the user messages sent meanwhile', () => {
    const messages = buildTranscript({
      systemPrompt: 'sys',
      events: [user('go'), action('a', 'r1'), user('sent during the call')],
    });
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      { role: 'tool', content: INTERRUPTED_CALL_RESULT, toolCallId: 'a', toolName: 'shell' },
      { role: 'user', content: 'sent during the call' },
    ]);
  });
});

const agentError = (callId: string, error: string): ConversationEventWire => ({
  kind: 'AgentErrorEvent',
  ...base(),
  source: 'agent',
  error,
  tool_name: 'shell',
  tool_call_id: callId,
});
const rejected = (callId: string): ConversationEventWire => ({
  kind: 'UserRejectObservation',
  ...base(),
  source: 'user',
  action_id: 'unused',
  tool_name: 'shell',
  tool_call_id: callId,
  rejection_reason: 'no',
  rejection_source: 'user',
});
const stateUpdate = (): ConversationEventWire => ({
  kind: 'ConversationStateUpdateEvent',
  ...base(),
  source: 'environment',
  key: 'execution_status',
  value: 'running',
});
const condensation = (forgotten: string[], summary?: string): ConversationEventWire => ({
  kind: 'Condensation',
  ...base(),
  source: 'environment',
  forgotten_event_ids: forgotten,
  summary: summary ?? null,
  summary_offset: summary === undefined ? null : 1,
  llm_response_id: 'condenser',
});

/** A history with every kind the transcript reads, in the orders that change its shape. */
function history(): ConversationEventWire[] {
  const first = user('go');
  const events: ConversationEventWire[] = [
    first,
    stateUpdate(),
    action('a', 'r1', 'Two calls.'),
    action('b', 'r1'),
    user('sent during the calls'),
    observation('a', 'A'),
    agentError('b', 'bad'),
    action('c', 'r2'),
    action('d', 'r3'), // c is left without a result
    rejected('d'),
    { kind: 'CondensationRequest', ...base(), source: 'user' },
    user('again'),
  ];
  events.push(condensation([first.id, events[2]!.id], 'Earlier: a call.'));
  events.push(action('e', 'r4'), observation('e', 'E'), action('f', 'r4'), user('late'));
  events.push(observation('f', 'F'), condensation([events.at(-1)!.id]), user('last'));
  return events;
}

describe('TranscriptBuilder', () => {
  it('gives what buildTranscript gives after every event added to the same history', () => {
    const all = history();
    const events: ConversationEventWire[] = [];
    const builder = new TranscriptBuilder();
    const returned: { messages: unknown; copy: unknown }[] = [];
    for (const event of all) {
      events.push(event);
      const messages = builder.build({ systemPrompt: 'sys', events });
      expect(messages).toEqual(buildTranscript({ systemPrompt: 'sys', events: [...events] }));
      returned.push({ messages, copy: structuredClone(messages) });
    }
    // Transcripts already returned did not change as more events were read.
    for (const { messages, copy } of returned) expect(messages).toEqual(copy);
  });

  it('starts over for another history, or one that lost events at the front', () => {
    const all = history();
    const builder = new TranscriptBuilder();
    const events = all.slice(0, 8);
    builder.build({ systemPrompt: 'sys', events });
    // The same array with its oldest events dropped (a memory window), then more added: longer
    // than before, but not the events read.
    events.splice(0, 2);
    events.push(...all.slice(8, 12));
    expect(builder.build({ systemPrompt: 'sys', events })).toEqual(
      buildTranscript({ systemPrompt: 'sys', events: [...events] }),
    );
    const other = all.slice(2, 6);
    expect(builder.build({ systemPrompt: 'other', events: other })).toEqual(
      buildTranscript({ systemPrompt: 'other', events: other }),
    );
  });
});
