import { WorkspaceError } from '@agent-workspace/core';
import type { StreamingDeltaEventWire } from '@agent-workspace/protocol';
import { Agent, RemoteConversation, ScriptedLLM } from '@agent-workspace/sdk';
import { describe, expect, it, vi } from 'vitest';
import { useRemoteTestServer } from '../test-support/remote-test-server.js';

const API_KEY = 'remote-llm-control-key';

describe("the SDK RemoteConversation's askAgent, switchLlm, stats and streamed deltas", () => {
  const remote = useRemoteTestServer(API_KEY);

  it('drives the model-control routes like a LocalConversation', async () => {
    const llm = new ScriptedLLM({
      usageId: 'agent',
      stream: true,
      streamChunkChars: 2,
      questionAnswer: 'nothing yet',
      script: [{ text: 'First answer.', usage: { prompt_tokens: 11, completion_tokens: 2 } }],
    });
    await using conversation = await RemoteConversation.create({
      agent: new Agent({ llm, tools: ['TerminalTool'] }),
      workspace: remote.workspace,
    });
    const deltas: StreamingDeltaEventWire[] = [];
    conversation.subscribeStreamingDeltas((delta) => deltas.push(delta));
    await conversation.sendMessage('Go.');
    expect(await conversation.run()).toBe('finished');
    await vi.waitFor(() =>
      expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('First answer.'),
    );
    expect(conversation.events.toArray().map((event) => event.kind)).not.toContain(
      'StreamingDeltaEvent',
    );

    const eventCount = conversation.events.length;
    expect(await conversation.askAgent('What now?')).toBe('nothing yet');
    await expect(conversation.askAgent('')).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') && error.details.field === 'question',
    );
    expect(conversation.events.length).toBe(eventCount);

    await conversation.switchLlm(
      new ScriptedLLM({ usageId: 'next', script: [{ text: 'x' }, { text: 'Second answer.' }] }),
    );
    await conversation.sendMessage('Again.');
    expect(await conversation.run()).toBe('finished');
    expect(await conversation.agentFinalResponse()).toBe('Second answer.');

    const stats = await conversation.stats();
    expect(Object.keys(stats.usage_to_metrics).sort()).toEqual(['agent', 'ask-agent-llm', 'next']);
    expect(stats.usage_to_metrics.agent?.accumulated_token_usage?.prompt_tokens).toBe(11);
    await expect(
      conversation.switchLlm({ model: 'no-config', complete: async () => ({}) } as never),
    ).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') && error.details.field === 'llm',
    );
  });
});
