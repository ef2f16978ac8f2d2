import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, WorkspaceError } from '@agent-workspace/core';
import {
  type ConversationEventWire,
  MAX_ASK_AGENT_QUESTION_LENGTH,
  SECRET_MASK,
  type StreamingDeltaEventWire,
  streamingDeltaEventWireSchema,
} from '@agent-workspace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Agent } from '../agent/agent.js';
import { ASK_AGENT_USAGE_ID } from '../agent/ask-agent.js';
import { expectWireEvents } from '../agent/test-support/expect-wire-events.js';
import { LLM } from '../llm/llm.js';
import { ScriptedLLM, type ScriptedLLMOptions } from '../llm/scripted-llm.js';
import { OpenAICompatibleDouble } from '../testing/openai-compatible-double.js';
import { LocalConversation } from './local-conversation.js';

let root: string;
let workspace: LocalWorkspace;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'conversation-llm-control-'));
  workspace = new LocalWorkspace({ workingDir: root });
});

afterEach(async () => {
  await workspace.close();
  await rm(root, { recursive: true, force: true });
});

const finish = (message: string) => ({ name: 'finish', arguments: { message } });
const echo = (text: string) => ({ name: 'terminal', arguments: { command: `echo ${text}` } });

function scripted(options: ScriptedLLMOptions): Agent {
  return new Agent({ llm: new ScriptedLLM(options), tools: ['TerminalTool'] });
}

const statsUpdates = (events: Iterable<ConversationEventWire>) =>
  [...events].filter(
    (event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'stats',
  );

describe('LocalConversation stats', () => {
  it('accounts each model response, records a stats update after it, and persists them', async () => {
    const persistenceDir = path.join(root, 'state');
    const agent = scripted({
      usageId: 'agent',
      script: [
        { toolCalls: [echo('hi')], usage: { prompt_tokens: 100, completion_tokens: 10 } },
        { toolCalls: [finish('done')], usage: { prompt_tokens: 150, completion_tokens: 5 } },
      ],
    });
    const conversation = await LocalConversation.create({ agent, workspace, persistenceDir });
    await conversation.sendMessage('Go');
    expect(await conversation.run()).toBe('finished');

    const metrics = conversation.stats().usage_to_metrics.agent!;
    expect(metrics.model_name).toBe('scripted');
    expect(metrics.accumulated_token_usage).toMatchObject({
      prompt_tokens: 250,
      completion_tokens: 15,
    });
    expect(metrics.token_usages.map((usage) => usage.response_id)).toEqual([
      'scripted-0',
      'scripted-1',
    ]);
    const updates = statsUpdates(conversation.events);
    expect(updates).toHaveLength(2);
    // The update comes before what the response made (OpenHands' order).
    const kinds = conversation.events.toArray().map((event) => event.kind);
    const firstUpdate = conversation.events.toArray().indexOf(updates[0]!);
    expect(kinds[firstUpdate + 1]).toBe('ActionEvent');
    expect(updates[1]).toMatchObject({
      value: {
        usage_to_metrics: {
          agent: { model_name: 'scripted', accumulated_token_usage: { prompt_tokens: 250 } },
        },
      },
    });
    expectWireEvents(conversation.events);
    await conversation.close();

    const summary = await LocalConversation.inspect(persistenceDir);
    expect(summary.stats.usage_to_metrics.agent?.accumulated_token_usage?.prompt_tokens).toBe(250);
    const reopened = await LocalConversation.open({ agent, workspace, persistenceDir });
    expect(reopened.stats()).toEqual(conversation.stats());
    await reopened.close();
  });

  it('computes cost from the LLM’s per-token prices (OpenAI-compatible double)', async () => {
    await using double = await OpenAICompatibleDouble.start();
    double.reply({
      kind: 'completion',
      text: 'All done.',
      usage: { promptTokens: 2000, completionTokens: 100, cachedTokens: 500 },
    });
    const llm = LLM.fromConfig({
      model: 'openai/priced',
      base_url: double.baseUrl,
      api_key: 'sk-test',
      input_cost_per_token: 0.000001,
      output_cost_per_token: 0.00001,
      usage_id: 'agent',
    });
    await using conversation = await LocalConversation.create({
      agent: new Agent({ llm }),
      workspace,
    });
    await conversation.sendMessage('Hi');
    expect(await conversation.run()).toBe('finished');
    const metrics = conversation.stats().usage_to_metrics.agent!;
    expect(metrics.model_name).toBe('openai/priced');
    expect(metrics.accumulated_cost).toBeCloseTo(2000 * 0.000001 + 100 * 0.00001);
    expect(metrics.accumulated_token_usage?.cache_read_tokens).toBe(500);
  });
});

describe('LocalConversation.switchLlm', () => {
  it('runs the next model call on the new model, keeps its usage apart, and persists it', async () => {
    const persistenceDir = path.join(root, 'state');
    const first = scripted({
      usageId: 'agent',
      script: [{ text: 'first model answers', usage: { prompt_tokens: 1 } }],
    });
    const conversation = await LocalConversation.create({
      agent: first,
      workspace,
      persistenceDir,
    });
    await conversation.sendMessage('One');
    await conversation.run();
    const second = new ScriptedLLM({
      usageId: 'switched',
      script: [{ text: 'unused' }, { text: 'second model answers', usage: { prompt_tokens: 2 } }],
    });
    await conversation.switchLlm(second);
    expect(conversation.agent.llm).toBe(second);
    expect(conversation.agent.toConfig().tools).toEqual(first.toConfig().tools);
    await conversation.sendMessage('Two');
    await conversation.run();
    expect(conversation.agentFinalResponse()).toBe('second model answers');
    expect(Object.keys(conversation.stats().usage_to_metrics)).toEqual(['agent', 'switched']);
    const agentUpdates = conversation.events
      .toArray()
      .filter((event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'agent');
    expect(agentUpdates).toHaveLength(1);
    expect(agentUpdates[0]).toMatchObject({ value: { llm: { usage_id: 'switched' } } });
    await conversation.close();

    const summary = await LocalConversation.inspect(persistenceDir);
    expect(summary.agent).toMatchObject({ llm: { kind: 'ScriptedLLM', usage_id: 'switched' } });
    const reopened = await LocalConversation.open({
      agent: Agent.fromConfig(summary.agent),
      workspace,
      persistenceDir,
    });
    expect((reopened.agent.llm as ScriptedLLM).usageId).toBe('switched');
    await reopened.close();
  });

  it('lets the call in flight finish on the old model; the next one uses the new', async () => {
    const slow = scripted({
      stream: true,
      streamChunkChars: 1,
      streamDelayMs: 20,
      script: [{ toolCalls: [echo('one')], text: 'old model thinking' }, { text: 'old final' }],
    });
    await using conversation = await LocalConversation.create({ agent: slow, workspace });
    const deltas: StreamingDeltaEventWire[] = [];
    conversation.subscribeStreamingDeltas((delta) => deltas.push(delta));
    await conversation.sendMessage('Go');
    const running = conversation.run();
    await vi.waitFor(() => expect(deltas.length).toBeGreaterThan(0));
    await conversation.switchLlm(
      new ScriptedLLM({ script: [{ text: 'unused' }, { text: 'new model final' }] }),
    );
    expect(await running).toBe('finished');
    const thought = conversation.events.toArray().find((event) => event.kind === 'ActionEvent');
    expect(thought).toMatchObject({ thought: [{ text: 'old model thinking' }] });
    expect(conversation.agentFinalResponse()).toBe('new model final');
  });

  it('refuses what is not a model, naming llm', async () => {
    await using conversation = await LocalConversation.create({
      agent: scripted({ script: [] }),
      workspace,
    });
    const error = await conversation
      .switchLlm({ model: 'x' } as never)
      .catch((failure: unknown) => failure);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details.field).toBe('llm');
  });
});

describe('LocalConversation.askAgent', () => {
  it('answers from the history without running tools or recording events', async () => {
    const agent = scripted({
      script: [{ toolCalls: [echo('hi')] }, { toolCalls: [finish('done')] }],
      questionAnswer: undefined,
    });
    await using conversation = await LocalConversation.create({ agent, workspace });
    await conversation.sendMessage('Go');
    await conversation.run();
    const before = conversation.events.toArray();
    const answer = await conversation.askAgent('What did you run?');
    // System prompt, user message, two assistant turns and their two tool results.
    expect(answer).toBe('ScriptedLLM: asked "What did you run?" after 6 messages.');
    expect(conversation.events.toArray()).toEqual(before);
    expect(conversation.state.executionStatus).toBe('finished');
    const usage = conversation.stats().usage_to_metrics[ASK_AGENT_USAGE_ID];
    expect(usage?.token_usages).toHaveLength(1);
  });

  it('refuses an empty or oversized question, naming question', async () => {
    await using conversation = await LocalConversation.create({
      agent: scripted({ script: [] }),
      workspace,
    });
    for (const question of ['', '   ', 'x'.repeat(MAX_ASK_AGENT_QUESTION_LENGTH + 1)]) {
      const error = await conversation.askAgent(question).catch((failure: unknown) => failure);
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as WorkspaceError).details.field).toBe('question');
    }
  });

  it('fails with LLM_BAD_RESPONSE when the model answers no text', async () => {
    await using conversation = await LocalConversation.create({
      agent: scripted({ script: [], questionAnswer: '' }),
      workspace,
    });
    const error = await conversation.askAgent('Anything?').catch((failure: unknown) => failure);
    expect(WorkspaceError.isInstance(error, 'LLM_BAD_RESPONSE')).toBe(true);
  });

  it('answers while a run is going on', async () => {
    const agent = scripted({
      questionAnswer: 'busy streaming',
      stream: true,
      streamChunkChars: 1,
      streamDelayMs: 10,
      script: [{ text: 'a slow final answer' }],
    });
    await using conversation = await LocalConversation.create({ agent, workspace });
    await conversation.sendMessage('Go');
    const running = conversation.run();
    expect(await conversation.askAgent('Status?')).toBe('busy streaming');
    expect(await running).toBe('finished');
  });
});

describe('LocalConversation streaming', () => {
  it('tells subscribers each delta as a StreamingDeltaEvent, never recorded', async () => {
    const agent = scripted({
      stream: true,
      streamChunkChars: 3,
      script: [{ reasoning: 'why', text: 'Streamed answer.' }],
    });
    await using conversation = await LocalConversation.create({ agent, workspace });
    const deltas: StreamingDeltaEventWire[] = [];
    const unsubscribe = conversation.subscribeStreamingDeltas((delta) => deltas.push(delta));
    await conversation.sendMessage('Go');
    await conversation.run();
    for (const delta of deltas) expect(streamingDeltaEventWireSchema.parse(delta)).toEqual(delta);
    expect(deltas[0]).toMatchObject({ kind: 'StreamingDeltaEvent', reasoning_content: 'why' });
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('Streamed answer.');
    expect(conversation.events.toArray().map((event) => event.kind)).not.toContain(
      'StreamingDeltaEvent',
    );
    expect(conversation.agentFinalResponse()).toBe('Streamed answer.');
    unsubscribe();
    const count = deltas.length;
    await conversation.sendMessage('Again');
    await conversation.run();
    expect(deltas).toHaveLength(count);
  });

  it('masks a secret value split across streamed pieces, and in side answers', async () => {
    const secret = 'hunter2-very-secret-value';
    const agent = scripted({
      stream: true,
      streamChunkChars: 3,
      script: [{ reasoning: `thinking of ${secret}`, text: `The token is ${secret}, done.` }],
      questionAnswer: `It was ${secret}.`,
    });
    await using conversation = await LocalConversation.create({ agent, workspace });
    await conversation.updateSecrets({ API_TOKEN: secret });
    const deltas: StreamingDeltaEventWire[] = [];
    conversation.subscribeStreamingDeltas((delta) => deltas.push(delta));
    await conversation.sendMessage('Go');
    await conversation.run();
    const text = deltas.map((delta) => delta.content ?? '').join('');
    const reasoning = deltas.map((delta) => delta.reasoning_content ?? '').join('');
    expect(text).toBe(`The token is ${SECRET_MASK}, done.`);
    expect(reasoning).toBe(`thinking of ${SECRET_MASK}`);
    expect(JSON.stringify(deltas)).not.toContain('hunter2');
    expect(JSON.stringify(deltas)).not.toContain('secret-value');
    expect(await conversation.askAgent('Which token?')).toBe(`It was ${SECRET_MASK}.`);
  });

  it('interrupt cancels mid-stream: the answer is not recorded and the run resumes', async () => {
    const agent = scripted({
      stream: true,
      streamChunkChars: 1,
      streamDelayMs: 10,
      script: [{ text: 'a long streamed answer that interrupt cuts short' }],
    });
    await using conversation = await LocalConversation.create({ agent, workspace });
    const deltas: StreamingDeltaEventWire[] = [];
    conversation.subscribeStreamingDeltas((delta) => deltas.push(delta));
    await conversation.sendMessage('Go');
    const running = conversation.run();
    await vi.waitFor(() => expect(deltas.length).toBeGreaterThanOrEqual(3));
    await conversation.interrupt();
    expect(await running).toBe('paused');
    expect(deltas.length).toBeLessThan(20);
    expect(conversation.agentFinalResponse()).toBe('');
    expect(statsUpdates(conversation.events)).toHaveLength(0);
    expect(await conversation.run()).toBe('finished');
    expect(conversation.agentFinalResponse()).toBe(
      'a long streamed answer that interrupt cuts short',
    );
  });

  it('pause lets the streaming answer finish (OpenHands: after the call in flight)', async () => {
    const agent = scripted({
      stream: true,
      streamChunkChars: 2,
      streamDelayMs: 5,
      script: [{ toolCalls: [echo('x')], text: 'streamed thought' }, { text: 'never asked' }],
    });
    await using conversation = await LocalConversation.create({ agent, workspace });
    const deltas: StreamingDeltaEventWire[] = [];
    let paused: Promise<void> | undefined;
    conversation.subscribeStreamingDeltas((delta) => {
      deltas.push(delta);
      paused ??= conversation.pause();
    });
    await conversation.sendMessage('Go');
    expect(await conversation.run()).toBe('paused');
    await paused;
    expect(deltas.map((delta) => delta.content).join('')).toBe('streamed thought');
    expect(statsUpdates(conversation.events)).toHaveLength(1);
  });
});
