import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it, vi } from 'vitest';
import { expectWireEvents } from '../agent/test-support/expect-wire-events.js';
import { LLMSummarizingCondenser, RollingWindowCondenser } from '../condenser/condenser.js';
import { ScriptedLLM, type ScriptedStep } from '../llm/scripted-llm.js';
import { useConversationTempWorkspace } from '../test-support/conversation-temp-workspace.js';
import {
  finish,
  kinds,
  ofKind,
  scriptedAgent,
  terminal,
} from '../test-support/scripted-conversation.js';
import { LocalConversation } from './local-conversation.js';

const temp = useConversationTempWorkspace('conversation-control-');

/** Ten rounds of distinct commands, then finish. */
const tenRounds = (): ScriptedStep[] => [
  ...Array.from({ length: 10 }, (_, i) => ({ toolCalls: [terminal(`echo round-${i}`)] })),
  { toolCalls: [finish('done')] },
];

describe('interrupt and pause', () => {
  it('interrupt() cancels the tool in flight and records an InterruptEvent', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [terminal('touch started && sleep 60 && touch slept')] },
      { toolCalls: [finish('after')] },
    ]);
    await using conversation = await LocalConversation.create({ agent, workspace: temp.workspace });
    await conversation.sendMessage('Go.');
    const running = conversation.run();
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    await conversation.interrupt();
    expect(await running).toBe('paused');
    expect(existsSync(path.join(temp.workingDir, 'slept'))).toBe(false);
    expect(kinds(conversation.events.toArray().slice(-4))).toEqual([
      'ActionEvent',
      'AgentErrorEvent',
      'InterruptEvent',
      'ConversationStateUpdateEvent',
    ]);
    expect(ofKind(conversation.events, 'PauseEvent')).toHaveLength(0);
    expect(await conversation.run()).toBe('finished');
    expect(llm.requests).toHaveLength(2);
    expectWireEvents(conversation.events);
  });

  it('pause() lets the step in flight finish, then pauses before the next model call', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [terminal('touch started && sleep 1 && touch slept')] },
      { toolCalls: [finish('after')] },
    ]);
    await using conversation = await LocalConversation.create({ agent, workspace: temp.workspace });
    await conversation.sendMessage('Go.');
    const running = conversation.run();
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    await conversation.pause();
    expect(await running).toBe('paused');
    expect(existsSync(path.join(temp.workingDir, 'slept'))).toBe(true);
    expect(kinds(conversation.events.toArray().slice(-4))).toEqual([
      'ActionEvent',
      'ObservationEvent',
      'PauseEvent',
      'ConversationStateUpdateEvent',
    ]);
    expect(llm.requests).toHaveLength(1);
    expect(await conversation.run()).toBe('finished');
  });

  it('does nothing when no run is going on', async () => {
    const { agent } = scriptedAgent([]);
    await using conversation = await LocalConversation.create({ agent, workspace: temp.workspace });
    await conversation.interrupt();
    await conversation.pause();
    expect(conversation.events.toArray()).toEqual([]);
    expect(conversation.state.executionStatus).toBe('idle');
  });
});

describe('condense', () => {
  it('keeps every prompt within the condenser window during a long run', async () => {
    const { agent, llm } = scriptedAgent(tenRounds(), {
      condenser: new RollingWindowCondenser({ maxSize: 8, keepFirst: 1 }),
    });
    await using conversation = await LocalConversation.create({ agent, workspace: temp.workspace });
    await conversation.sendMessage('Run ten rounds.');
    expect(await conversation.run()).toBe('finished');
    expect(ofKind(conversation.events, 'Condensation').length).toBeGreaterThan(0);
    // system prompt + at most max_size events, every time; the first message always kept.
    for (const request of llm.requests) {
      expect(request.messages.length).toBeLessThanOrEqual(9);
      expect(request.messages[1]).toMatchObject({ role: 'user', content: 'Run ten rounds.' });
    }
    const last = llm.requests
      .at(-1)!
      .messages.map((message) => message.content)
      .join('\n');
    expect(last).not.toContain('round-0');
  });

  it('forces a summary with condense(), shown to the model after a reopen', async () => {
    const persistenceDir = path.join(temp.root, 'persisted');
    const summarizer = new ScriptedLLM({ script: [{ text: 'SUMMARY: rounds 0-6 echoed' }] });
    const condenser = new LLMSummarizingCondenser({ llm: summarizer, maxSize: 100, keepFirst: 1 });
    const first = scriptedAgent(tenRounds(), { condenser });
    const conversation = await LocalConversation.create({
      agent: first.agent,
      workspace: temp.workspace,
      persistenceDir,
    });
    await conversation.sendMessage('Run ten rounds.');
    expect(await conversation.run()).toBe('finished');
    expect(ofKind(conversation.events, 'Condensation')).toHaveLength(0);
    await conversation.condense();
    const [condensation] = ofKind(conversation.events, 'Condensation');
    expect(condensation).toMatchObject({
      summary: 'SUMMARY: rounds 0-6 echoed',
      summary_offset: 1,
    });
    expect(kinds(conversation.events.toArray().slice(-2))).toEqual([
      'CondensationRequest',
      'Condensation',
    ]);
    expectWireEvents(conversation.events);
    // The summarising call is accounted apart, under OpenHands' `condenser` usage id.
    const usageIds = Object.keys(conversation.stats().usage_to_metrics);
    expect(usageIds).toContain('condenser');
    expect(usageIds).toHaveLength(2);
    await conversation.close();

    const second = scriptedAgent([{ text: 'ok' }], { condenser });
    await using reopened = await LocalConversation.open({
      agent: second.agent,
      workspace: temp.workspace,
      persistenceDir,
    });
    await reopened.sendMessage('And now?');
    expect(await reopened.run()).toBe('finished');
    const contents = second.llm.requests[0]!.messages.map((message) => message.content);
    expect(contents).toContain('SUMMARY: rounds 0-6 echoed');
    expect(contents.join('\n')).not.toContain('round-0');
    expect(contents[1]).toBe('Run ten rounds.');
  });

  it("answers a condense() made during a run at the run's next step", async () => {
    const { agent, llm } = scriptedAgent(
      [
        { toolCalls: [terminal('echo a')] },
        { toolCalls: [terminal('echo b')] },
        { toolCalls: [terminal('touch started && sleep 1')] },
        { toolCalls: [finish('done')] },
      ],
      { condenser: new RollingWindowCondenser({ maxSize: 100, keepFirst: 1 }) },
    );
    await using conversation = await LocalConversation.create({ agent, workspace: temp.workspace });
    await conversation.sendMessage('Go.');
    const running = conversation.run();
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    await conversation.condense();
    expect(ofKind(conversation.events, 'Condensation')).toHaveLength(0);
    expect(await running).toBe('finished');
    const order = kinds(conversation.events).filter((kind) => kind.startsWith('Condensation'));
    expect(order).toEqual(['CondensationRequest', 'Condensation']);
    const [condensation] = ofKind(conversation.events, 'Condensation');
    const [firstAction] = ofKind(conversation.events, 'ActionEvent');
    expect(condensation!.forgotten_event_ids).toContain(firstAction!.id);
    // The request before the condensation held the first call; the one after it does not.
    expect(JSON.stringify(llm.requests[2]!.messages)).toContain(firstAction!.tool_call_id);
    expect(JSON.stringify(llm.requests[3]!.messages)).not.toContain(firstAction!.tool_call_id);
    expect(llm.requests[3]!.messages.length).toBeLessThan(llm.requests[2]!.messages.length);
  });

  it('refuses without a condenser, recording nothing', async () => {
    const { agent } = scriptedAgent([{ text: 'hi' }]);
    await using conversation = await LocalConversation.create({ agent, workspace: temp.workspace });
    await conversation.sendMessage('Hello.');
    const before = conversation.events.toArray().length;
    await expect(conversation.condense()).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'NOT_SUPPORTED') &&
        error.details.reason === 'no_condenser',
    );
    expect(conversation.events.toArray()).toHaveLength(before);
  });
});

describe('title and fork', () => {
  it('persists the title, and refuses an empty or over-long one', async () => {
    const persistenceDir = path.join(temp.root, 'titled');
    const { agent } = scriptedAgent([]);
    const conversation = await LocalConversation.create({
      agent,
      workspace: temp.workspace,
      persistenceDir,
    });
    expect(conversation.title).toBeNull();
    await conversation.setTitle('Fix the build');
    for (const bad of ['', 'x'.repeat(201)]) {
      await expect(conversation.setTitle(bad)).rejects.toSatisfy(
        (error) =>
          WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') && error.details.field === 'title',
      );
    }
    await conversation.close();
    await using reopened = await LocalConversation.open({
      agent,
      workspace: temp.workspace,
      persistenceDir,
    });
    expect(reopened.title).toBe('Fix the build');
  });

  it('forks the events up to an event into an independent conversation', async () => {
    const { agent } = scriptedAgent([
      { toolCalls: [terminal('echo one')] },
      { text: 'first done' },
      { text: 'source again' },
    ]);
    await using source = await LocalConversation.create({
      agent,
      workspace: temp.workspace,
      persistenceDir: path.join(temp.root, 'source'),
    });
    await source.sendMessage('One.');
    expect(await source.run()).toBe('finished');
    const [observation] = ofKind(source.events, 'ObservationEvent');
    const upTo = source.events.toArray().findIndex((event) => event.id === observation!.id);

    // The scripted model answers by the transcript: the copied action is its step 0.
    const forkAgent = scriptedAgent([{ text: 'unused' }, { text: 'fork answer' }]);
    await using fork = await source.fork({
      agent: forkAgent.agent,
      fromEventId: observation!.id,
      persistenceDir: path.join(temp.root, 'fork'),
      title: 'A branch',
    });
    expect(fork.id).not.toBe(source.id);
    expect(fork.title).toBe('A branch');
    expect(fork.state.executionStatus).toBe('idle');
    expect(fork.events.toArray().map((event) => event.id)).toEqual(
      source.events
        .toArray()
        .slice(0, upTo + 1)
        .map((event) => event.id),
    );
    await fork.sendMessage('Fork question.');
    expect(await fork.run()).toBe('finished');
    expect(fork.agentFinalResponse()).toBe('fork answer');
    expect(
      source.events.toArray().some((event) => JSON.stringify(event).includes('Fork question')),
    ).toBe(false);
    // The fork is in its own directory and opens again.
    await fork.close();
    await using reopened = await LocalConversation.open({
      agent: forkAgent.agent,
      workspace: temp.workspace,
      persistenceDir: path.join(temp.root, 'fork'),
    });
    expect(reopened.id).toBe(fork.id);
    expect(reopened.agentFinalResponse()).toBe('fork answer');

    await expect(source.fork({ fromEventId: 'no-such-event' })).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'NOT_FOUND') && error.details.field === 'fromEventId',
    );
  });
});
