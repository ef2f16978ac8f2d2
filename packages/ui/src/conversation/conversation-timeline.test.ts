import type { ActionEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import {
  applyEvents,
  EMPTY_TIMELINE,
  pendingActionsOf,
  type StreamedEvent,
} from './conversation-timeline.js';

let clock = 0;
/** A canonical timestamp, later on each call. */
function at(): string {
  clock++;
  return `2026-11-27T07:00:00.${String(clock).padStart(6, '0')}Z`;
}

function message(id: string, text: string, source: 'user' | 'agent' = 'user'): StreamedEvent {
  return {
    kind: 'MessageEvent',
    id,
    timestamp: at(),
    source,
    llm_message: {
      role: source === 'user' ? 'user' : 'assistant',
      content: [{ type: 'text', text }],
    },
  } as StreamedEvent;
}

function status(id: string, value: string): StreamedEvent {
  return {
    kind: 'ConversationStateUpdateEvent',
    id,
    timestamp: at(),
    source: 'environment',
    key: 'execution_status',
    value,
  } as StreamedEvent;
}

function action(id: string, responseId: string, callId = `call-${id}`): ActionEventWire {
  return {
    kind: 'ActionEvent',
    id,
    timestamp: at(),
    source: 'agent',
    thought: [],
    action: { kind: 'TerminalAction', command: 'ls' },
    tool_name: 'terminal',
    tool_call_id: callId,
    tool_call: {
      id: callId,
      name: 'terminal',
      arguments: '{"command":"ls"}',
      origin: 'completion',
    },
    llm_response_id: responseId,
  } as ActionEventWire;
}

function observation(
  id: string,
  actionId: string,
  extra: Record<string, unknown> = {},
): StreamedEvent {
  return {
    kind: 'ObservationEvent',
    id,
    timestamp: at(),
    source: 'environment',
    observation: { kind: 'TerminalObservation', content: [], is_error: false, ...extra },
    action_id: actionId,
    tool_name: 'terminal',
    tool_call_id: `call-${actionId}`,
  } as StreamedEvent;
}

function delta(content: string, reasoning?: string): StreamedEvent {
  return {
    kind: 'StreamingDeltaEvent',
    id: `d-${content}`,
    timestamp: at(),
    source: 'agent',
    content,
    reasoning_content: reasoning ?? null,
  } as StreamedEvent;
}

describe('applyEvents', () => {
  it('keeps events in timestamp order, each id once', () => {
    const first = message('a', 'one');
    const second = message('b', 'two');
    const third = message('c', 'three');
    let timeline = applyEvents(EMPTY_TIMELINE, [first, third]);
    timeline = applyEvents(timeline, [second, first, third]);
    expect(timeline.events.map((event) => event.id)).toEqual(['a', 'b', 'c']);
  });

  it('does not change the timeline it was given', () => {
    const timeline = applyEvents(EMPTY_TIMELINE, [message('a', 'one')]);
    applyEvents(timeline, [message('b', 'two')]);
    expect(timeline.events.map((event) => event.id)).toEqual(['a']);
    expect(EMPTY_TIMELINE.events).toEqual([]);
  });

  it('folds state updates into status, title and model, and does not show them', () => {
    const full = {
      kind: 'ConversationStateUpdateEvent',
      id: 'full',
      timestamp: at(),
      source: 'environment',
      key: 'full_state',
      value: {
        execution_status: 'idle',
        title: 'Fix it',
        agent: { llm: { model: 'gpt-x' } },
        stats: {},
      },
    } as StreamedEvent;
    const stats = {
      ...status('s', ''),
      key: 'stats',
      value: { usage_to_metrics: {} },
    } as StreamedEvent;
    const timeline = applyEvents(EMPTY_TIMELINE, [full, status('r', 'running'), stats]);
    expect(timeline).toMatchObject({ status: 'running', title: 'Fix it', model: 'gpt-x' });
    expect(timeline.events).toEqual([]);
    const scripted = {
      ...full,
      id: 'full2',
      value: { agent: { llm: { kind: 'ScriptedLLM' } } },
    } as StreamedEvent;
    expect(applyEvents(timeline, [scripted]).model).toBe('scripted');
  });

  it('does not apply a replayed state update twice', () => {
    const running = status('r', 'running');
    let timeline = applyEvents(EMPTY_TIMELINE, [running, status('f', 'finished')]);
    timeline = applyEvents(timeline, [running]);
    expect(timeline.status).toBe('finished');
  });

  it('accumulates streamed deltas until the answer arrives', () => {
    let timeline = applyEvents(EMPTY_TIMELINE, [
      status('r', 'running'),
      delta('Hel', 'Let me'),
      delta('lo', ' think'),
    ]);
    expect(timeline.streaming).toEqual({ content: 'Hello', reasoning: 'Let me think' });
    expect(timeline.events).toEqual([]);
    timeline = applyEvents(timeline, [message('u', 'a user message')]);
    expect(timeline.streaming?.content).toBe('Hello');
    timeline = applyEvents(timeline, [message('m', 'Hello', 'agent')]);
    expect(timeline.streaming).toBeNull();
    timeline = applyEvents(timeline, [delta('ls'), action('x', 'r2')]);
    expect(timeline.streaming).toBeNull();
    timeline = applyEvents(timeline, [delta('partial'), status('i', 'idle')]);
    expect(timeline.streaming).toBeNull();
  });

  it('keeps the newest task list', () => {
    const plan = (id: string, titles: string[]) =>
      observation(id, 'plan', {
        kind: 'TaskTrackerObservation',
        task_list: titles.map((title) => ({ title, notes: '', status: 'todo' })),
      });
    const timeline = applyEvents(EMPTY_TIMELINE, [
      plan('p1', ['Write']),
      plan('p2', ['Write', 'Test']),
    ]);
    expect(timeline.tasks.map((task) => task.title)).toEqual(['Write', 'Test']);
    expect(timeline.tasks[1]).toEqual({ title: 'Test', notes: '', status: 'todo' });
  });

  it('drops the oldest events past the limit', () => {
    const events = Array.from({ length: 25 }, (_, index) => message(`m${index}`, `${index}`));
    let timeline = applyEvents(EMPTY_TIMELINE, events.slice(0, 10), { maxEvents: 10 });
    timeline = applyEvents(timeline, events.slice(10), { maxEvents: 10 });
    expect(timeline.events).toHaveLength(10);
    expect(timeline.events[0]?.id).toBe('m15');
    expect(timeline.events.at(-1)?.id).toBe('m24');
    expect(timeline.dropped).toBe(15);
    expect(timeline.ids.size).toBeLessThanOrEqual(20);
  });
});

describe('pendingActionsOf', () => {
  it('is empty unless the conversation waits for confirmation', () => {
    const events = [action('a', 'r1')];
    expect(pendingActionsOf({ status: 'running', events })).toEqual([]);
  });

  it('lists the unanswered actions of the newest response, oldest first', () => {
    const old = action('old', 'r1');
    const a = action('a', 'r2');
    const b = action('b', 'r2');
    const c = action('c', 'r2', 'call-c');
    const d = action('d', 'r2');
    const rejected = {
      kind: 'UserRejectObservation',
      id: 'rej',
      timestamp: at(),
      source: 'environment',
      action_id: 'b',
      tool_name: 'terminal',
      tool_call_id: 'call-b',
      rejection_reason: 'no',
    } as StreamedEvent;
    const failed = {
      kind: 'AgentErrorEvent',
      id: 'err',
      timestamp: at(),
      source: 'agent',
      error: 'bad',
      tool_name: 'terminal',
      tool_call_id: 'call-c',
    } as StreamedEvent;
    const timeline = applyEvents(EMPTY_TIMELINE, [
      old,
      a,
      b,
      c,
      d,
      observation('o', 'a'),
      rejected,
      failed,
      status('w', 'waiting_for_confirmation'),
    ]);
    expect(pendingActionsOf(timeline).map((event) => event.id)).toEqual(['d']);
    const fresh = applyEvents(EMPTY_TIMELINE, [old, a, b, status('w', 'waiting_for_confirmation')]);
    expect(pendingActionsOf(fresh).map((event) => event.id)).toEqual(['a', 'b']);
  });
});
