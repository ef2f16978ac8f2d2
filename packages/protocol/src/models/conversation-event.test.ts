import { describe, expect, it } from 'vitest';
import { toJsonSchema } from '../json-schema/to-json-schema.js';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { actionEventWireSchema } from './action-event.js';
import { agentErrorEventWireSchema } from './agent-error-event.js';
import { conversationErrorEventWireSchema } from './conversation-error-event.js';
import { conversationEventWireSchema } from './conversation-event.js';
import { conversationStateUpdateEventWireSchema } from './conversation-state-update-event.js';
import { messageEventWireSchema } from './message-event.js';
import { observationEventWireSchema } from './observation-event.js';
import { pauseEventWireSchema } from './pause-event.js';

// Shapes as the OpenHands agent-server sends them (naive local timestamps, dashed UUIDs, extra
// fields of newer versions).
const userMessage = {
  kind: 'MessageEvent',
  id: '0f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:00.123456',
  source: 'user',
  llm_message: {
    role: 'user',
    content: [{ type: 'text', text: 'Create hello.txt', cache_prompt: false }],
    thinking_blocks: [],
  },
  activated_skills: [],
  extended_content: [],
};

const toolCall = {
  id: 'call_1',
  name: 'terminal',
  arguments: '{"command":"echo hi > hello.txt"}',
  origin: 'completion',
};

const action = {
  kind: 'ActionEvent',
  id: '1f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:01.000000',
  source: 'agent',
  thought: [{ type: 'text', text: 'I will write the file.' }],
  action: {
    kind: 'TerminalAction',
    command: 'echo hi > hello.txt',
    is_input: false,
    timeout: null,
  },
  tool_name: 'terminal',
  tool_call_id: 'call_1',
  tool_call: toolCall,
  llm_response_id: 'resp_1',
  security_risk: 'UNKNOWN',
  thinking_blocks: [],
};

const observation = {
  kind: 'ObservationEvent',
  id: '2f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:02.000000Z',
  source: 'environment',
  observation: {
    kind: 'TerminalObservation',
    content: [{ type: 'text', text: '' }],
    is_error: false,
    command: 'echo hi > hello.txt',
    exit_code: 0,
    metadata: { exit_code: 0, pid: -1 },
  },
  action_id: action.id,
  tool_name: 'terminal',
  tool_call_id: 'call_1',
};

const agentError = {
  kind: 'AgentErrorEvent',
  id: '3f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:03.000000',
  source: 'agent',
  error: "Tool 'browser' not found. Available: ['terminal']",
  tool_name: 'browser',
  tool_call_id: 'call_2',
};

const conversationError = {
  kind: 'ConversationErrorEvent',
  id: '4f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:04.000000',
  source: 'environment',
  code: 'MaxIterationsReached',
  detail: 'Agent reached maximum iterations limit (3).',
};

const stateUpdate = {
  kind: 'ConversationStateUpdateEvent',
  id: '5f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:05.000000',
  source: 'environment',
  key: 'execution_status',
  value: 'running',
};

const pause = {
  kind: 'PauseEvent',
  id: '6f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:06.000000',
  source: 'user',
};

const interrupt = { ...pause, kind: 'InterruptEvent', id: '7f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11' };
const condensation = {
  kind: 'Condensation',
  id: '8f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:07.000000',
  source: 'environment',
  forgotten_event_ids: [action.id, observation.id],
  summary: 'ran ls',
  summary_offset: 1,
  llm_response_id: 'resp-9',
};
const condensationRequest = {
  kind: 'CondensationRequest',
  id: '9f6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:08.000000',
  source: 'environment',
};

const userReject = {
  kind: 'UserRejectObservation',
  id: 'af6c1a8e-5b8d-4a57-9a3e-0d6f2f0b1c11',
  timestamp: '2026-08-22T10:00:09.000000',
  source: 'environment',
  action_id: action.id,
  tool_name: 'terminal',
  tool_call_id: 'call_1',
  rejection_reason: 'Not that.',
  rejection_source: 'user',
};

const everyEvent = [
  userMessage,
  action,
  observation,
  userReject,
  agentError,
  conversationError,
  stateUpdate,
  pause,
  interrupt,
  condensation,
  condensationRequest,
];

describe('conversation events', () => {
  it('keeps every wire field of every kind, extra OpenHands fields included', () => {
    for (const event of everyEvent) {
      expect(conversationEventWireSchema.parse(event)).toStrictEqual(event);
    }
  });

  it('picks the model by kind', () => {
    expect(conversationEventWireSchema.parse(action)).toStrictEqual(
      actionEventWireSchema.parse(action),
    );
    expect(conversationEventWireSchema.parse(observation)).toStrictEqual(
      observationEventWireSchema.parse(observation),
    );
    expectZodIssueAt(
      () => conversationEventWireSchema.parse({ ...pause, kind: 'TokenEvent' }),
      ['kind'],
    );
  });

  it('fills the OpenHands defaults of omitted fields', () => {
    const { source: _s, thought: _t, action: _a, ...bareAction } = action;
    expect(actionEventWireSchema.parse(bareAction)).toMatchObject({
      source: 'agent',
      thought: [],
      action: null,
    });
    const { source: _o, ...bareObservation } = observation;
    const parsed = observationEventWireSchema.parse({
      ...bareObservation,
      observation: { kind: 'FinishObservation' },
    });
    expect(parsed.source).toBe('environment');
    expect(parsed.observation).toStrictEqual({
      kind: 'FinishObservation',
      content: [],
      is_error: false,
    });
    expect(
      pauseEventWireSchema.parse({ kind: 'PauseEvent', id: 'x', timestamp: pause.timestamp }),
    ).toMatchObject({ source: 'user' });
    const { source: _e, ...bareError } = conversationError;
    expect(conversationErrorEventWireSchema.parse(bareError).source).toBe('environment');
    const message = messageEventWireSchema.parse({
      ...userMessage,
      llm_message: { role: 'assistant', content: [{ text: 'done' }] },
    });
    expect(message.llm_message.content).toStrictEqual([{ type: 'text', text: 'done' }]);
  });

  it('keeps any JSON as the value of a state update', () => {
    const fullState = { ...stateUpdate, key: 'full_state', value: { execution_status: 'idle' } };
    expect(conversationStateUpdateEventWireSchema.parse(fullState)).toStrictEqual(fullState);
  });

  it('names the bad field', () => {
    const { tool_call_id: _, ...withoutCallId } = agentError;
    expectZodIssueAt(() => agentErrorEventWireSchema.parse(withoutCallId), ['tool_call_id']);
    expectZodIssueAt(
      () => actionEventWireSchema.parse({ ...action, action: { command: 'ls' } }),
      ['action', 'kind'],
    );
    expectZodIssueAt(
      () => actionEventWireSchema.parse({ ...action, tool_call: { ...toolCall, arguments: {} } }),
      ['tool_call', 'arguments'],
    );
    expectZodIssueAt(
      () => observationEventWireSchema.parse({ ...observation, timestamp: 'yesterday' }),
      ['timestamp'],
    );
    expectZodIssueAt(
      () => messageEventWireSchema.parse({ ...userMessage, source: 'robot' }),
      ['source'],
    );
    expectZodIssueAt(
      () =>
        messageEventWireSchema.parse({
          ...userMessage,
          llm_message: { ...userMessage.llm_message, role: 'narrator' },
        }),
      ['llm_message', 'role'],
    );
  });

  it('has a JSON Schema with one branch per event kind', () => {
    const schema = toJsonSchema(conversationEventWireSchema) as { oneOf?: unknown[] };
    expect(schema.oneOf).toHaveLength(everyEvent.length);
  });
});
