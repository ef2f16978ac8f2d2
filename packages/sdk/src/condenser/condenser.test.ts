import { WorkspaceError } from '@agent-workspace/core';
import type { CondensationEventWire, ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { buildTranscript } from '../agent/build-transcript.js';
import { recordingModel } from '../agent/test-support/recording-model.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import { condensedView, cutPoints, type ViewEvent } from './condensation-view.js';
import { LLMSummarizingCondenser, NoOpCondenser, RollingWindowCondenser } from './condenser.js';
import { condensationFor, condenserFromConfig } from './condenser-from-config.js';

const at = '2026-01-01T00:00:00';
const user = (id: string, text = id): ViewEvent =>
  ({
    kind: 'MessageEvent',
    id,
    timestamp: at,
    source: 'user',
    llm_message: { role: 'user', content: [{ type: 'text', text }] },
  }) as ViewEvent;
const action = (id: string, call: string, response = `r-${id}`): ViewEvent =>
  ({
    kind: 'ActionEvent',
    id,
    timestamp: at,
    source: 'agent',
    thought: [],
    tool_name: 'terminal',
    tool_call_id: call,
    tool_call: {
      id: call,
      name: 'terminal',
      arguments: JSON.stringify({ command: id }),
      origin: 'completion',
    },
    llm_response_id: response,
    action: { kind: 'TerminalAction', command: id },
  }) as ViewEvent;
const observation = (id: string, call: string): ViewEvent =>
  ({
    kind: 'ObservationEvent',
    id,
    timestamp: at,
    source: 'environment',
    tool_name: 'terminal',
    tool_call_id: call,
    action_id: 'a',
    observation: { kind: 'TerminalObservation', content: [{ type: 'text', text: id }] },
  }) as ViewEvent;
const condensation = (fields: Partial<CondensationEventWire>): ConversationEventWire => ({
  kind: 'Condensation',
  id: 'c1',
  timestamp: at,
  source: 'environment',
  forgotten_event_ids: [],
  summary: null,
  summary_offset: null,
  llm_response_id: 'x',
  ...fields,
});
const ids = (events: readonly { id: string }[]) => events.map((event) => event.id);
/** `count` tool rounds (action + observation), ids a0/o0, a1/o1, ... */
const rounds = (count: number) =>
  Array.from({ length: count }, (_, i) => [
    action(`a${i}`, `c${i}`),
    observation(`o${i}`, `c${i}`),
  ]).flat();

describe('condensedView', () => {
  it('drops forgotten events, puts the summary at its offset, and tracks requests', () => {
    const events: ConversationEventWire[] = [
      user('m0'),
      ...rounds(2),
      { kind: 'CondensationRequest', id: 'q', timestamp: at, source: 'environment' },
    ];
    expect(condensedView(events).requested).toBe(true);
    const view = condensedView([
      ...events,
      condensation({ forgotten_event_ids: ['a0', 'o0'], summary: 'did a0', summary_offset: 1 }),
      user('m1'),
    ]);
    expect(view.requested).toBe(false);
    expect(ids(view.events)).toEqual(['m0', 'c1-summary', 'a1', 'o1', 'm1']);
    expect(view.events[1]).toMatchObject({ llm_message: { role: 'user' } });
    // A later condensation forgets the earlier summary in turn.
    const again = condensedView([
      ...events,
      condensation({ forgotten_event_ids: ['a0', 'o0'], summary: 'did a0', summary_offset: 1 }),
      condensation({
        id: 'c2',
        forgotten_event_ids: ['c1-summary', 'a1', 'o1'],
        summary: 'all',
        summary_offset: 1,
      }),
    ]);
    expect(ids(again.events)).toEqual(['m0', 'c2-summary']);
  });

  it('never cuts between a tool call and its result', () => {
    const view = [
      user('m'),
      action('a', 'c1', 'r'),
      action('b', 'c2', 'r'),
      observation('x', 'c1'),
      observation('y', 'c2'),
      user('n'),
    ];
    expect(cutPoints(view)).toEqual([true, true, false, false, false, true, true]);
  });
});

describe('RollingWindowCondenser', () => {
  it('leaves a view within max_size alone, and past it keeps the first and the newest', async () => {
    const condenser = new RollingWindowCondenser({ maxSize: 10, keepFirst: 1 });
    const small = [user('m'), ...rounds(4)];
    expect(await condenser.condense({ view: small, requested: false })).toBeUndefined();
    const big = [user('m'), ...rounds(8)]; // 17 events
    const made = await condenser.condense({ view: big, requested: false });
    expect(made).toMatchObject({ kind: 'Condensation', summary: null });
    // Keeps m and the newest 10/2 - 1 - 1 = 3 events, moved to a cut point: a7, o7 (+ o6? no: cut after o6).
    const after = condensedView([...big, made!]).events;
    expect(ids(after)).toEqual(['m', 'a7', 'o7']);
    expect(after.length).toBeLessThanOrEqual(10);
  });

  it('halves the view on request, and refuses a request with nothing to forget', async () => {
    const condenser = new RollingWindowCondenser({ maxSize: 100, keepFirst: 0 });
    const made = await condenser.condense({ view: rounds(6), requested: true });
    expect(made?.forgotten_event_ids.length).toBeGreaterThan(0);
    await expect(condenser.condense({ view: [user('m')], requested: true })).rejects.toSatisfy(
      (error) => WorkspaceError.isInstance(error, 'NOT_SUPPORTED'),
    );
  });
});

describe('LLMSummarizingCondenser', () => {
  it('summarises the forgotten events with its model, in their place', async () => {
    const llm = recordingModel(new ScriptedLLM({ script: [{ text: 'SUMMARY: ran a0..a6' }] }));
    const condenser = new LLMSummarizingCondenser({ llm, maxSize: 10, keepFirst: 1 });
    const view = [user('m', 'build it'), ...rounds(8)];
    const made = await condenser.condense({ view, requested: false });
    expect(made).toMatchObject({ summary: 'SUMMARY: ran a0..a6', summary_offset: 1 });
    const prompt = llm.requests[0]!.messages[0]!.content;
    expect(prompt).toContain('<EVENT>');
    expect(prompt).toContain('a0');
    expect(prompt).not.toContain('build it'); // the kept first event is not summarised
    const transcript = buildTranscript({ systemPrompt: 'sys', events: [...view, made!] });
    expect(transcript.map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
    ]);
    expect(transcript[2]!.content).toBe('SUMMARY: ran a0..a6');
  });

  it('summarises the whole view on a request that finds nothing else to forget', async () => {
    const llm = new ScriptedLLM({ script: [{ text: 'everything' }] });
    const condenser = new LLMSummarizingCondenser({ llm, maxSize: 100, keepFirst: 4 });
    const made = await condenser.condense({ view: [user('m'), user('n')], requested: true });
    expect(made).toMatchObject({
      forgotten_event_ids: ['m', 'n'],
      summary: 'everything',
      summary_offset: 0,
    });
  });
});

describe('condenserFromConfig', () => {
  const options = {
    agentModel: new ScriptedLLM({ script: [] }),
    createModel: () => {
      throw new Error('no');
    },
  };

  it('builds each kind, and none for null', () => {
    expect(condenserFromConfig(null, options)).toBeUndefined();
    expect(condenserFromConfig({ kind: 'NoOpCondenser' }, options)).toBeInstanceOf(NoOpCondenser);
    const rolling = condenserFromConfig(
      { kind: 'RollingWindowCondenser', max_size: 20, keep_first: 3 },
      options,
    );
    expect(rolling?.toConfig()).toEqual({
      kind: 'RollingWindowCondenser',
      max_size: 20,
      keep_first: 3,
    });
    const summarizing = condenserFromConfig({ kind: 'LLMSummarizingCondenser' }, options);
    expect(summarizing).toBeInstanceOf(LLMSummarizingCondenser);
    expect((summarizing as LLMSummarizingCondenser).llm).toBe(options.agentModel);
    expect(summarizing?.toConfig()).toEqual({
      kind: 'LLMSummarizingCondenser',
      max_size: 240,
      keep_first: 2,
    });
  });

  it.each([
    [{ kind: 'SmartCondenser' }, 'condenser.kind'],
    [{ kind: 'RollingWindowCondenser', max_size: 0 }, 'condenser.max_size'],
    [{ kind: 'RollingWindowCondenser', max_size: 10, keep_first: 4 }, 'condenser.keep_first'],
    [{ kind: 'LLMSummarizingCondenser', max_size: 20_000 }, 'condenser.max_size'],
  ])('refuses %j naming %s', (json, field) => {
    expect(() => condenserFromConfig(json, options)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', details: { field } }),
    );
  });

  it('travels in the agent JSON, and an unknown kind fails Agent.fromConfig', () => {
    const json = {
      llm: { kind: 'ScriptedLLM', script: [] },
      condenser: { kind: 'RollingWindowCondenser', max_size: 30, keep_first: 2 },
    };
    const agent = Agent.fromConfig(json);
    expect(agent.condenser).toBeInstanceOf(RollingWindowCondenser);
    expect(agent.toConfig().condenser).toEqual(json.condenser);
    expect(() => Agent.fromConfig({ ...json, condenser: { kind: 'Nope' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', details: { field: 'condenser.kind' } }),
    );
  });

  it('leaves a request alone for a condenser that does not take requests', async () => {
    const events: ConversationEventWire[] = [
      ...rounds(3),
      { kind: 'CondensationRequest', id: 'q', timestamp: at, source: 'environment' },
    ];
    expect(await condensationFor(new NoOpCondenser(), events)).toBeUndefined();
    expect(await condensationFor(undefined, events)).toBeUndefined();
  });
});
