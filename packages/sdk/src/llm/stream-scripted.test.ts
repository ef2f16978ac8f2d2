import { describe, expect, it } from 'vitest';
import { askAgentPrompt } from '../agent/ask-agent.js';
import type { CompletionRequest } from './language-model.js';
import { LLMError } from './llm-error.js';
import { ScriptedLLM } from './scripted-llm.js';
import type { StreamDelta } from './stream-completion.js';

const hello = (
  deltas: StreamDelta[],
  extra: Partial<CompletionRequest> = {},
): CompletionRequest => ({
  messages: [{ role: 'user', content: 'Hi' }],
  tools: [],
  onStreamDelta: (delta) => deltas.push(delta),
  ...extra,
});

describe('ScriptedLLM streaming', () => {
  it('streams reasoning then text in chunks that assemble to the answer', async () => {
    const llm = new ScriptedLLM({
      script: [{ reasoning: 'hmm…', text: 'Hello, scripted world' }],
      stream: true,
      streamChunkChars: 4,
    });
    const deltas: StreamDelta[] = [];
    const completion = await llm.complete(hello(deltas));
    expect(deltas[0]).toEqual({ reasoningContent: 'hmm…' });
    const text = deltas.flatMap((delta) => delta.content ?? []);
    expect(text).toEqual(['Hell', 'o, s', 'crip', 'ted ', 'worl', 'd']);
    expect(completion.message.content).toBe('Hello, scripted world');
  });

  it('does not stream unless asked', async () => {
    const llm = new ScriptedLLM({ script: [{ text: 'Whole' }] });
    const deltas: StreamDelta[] = [];
    await llm.complete(hello(deltas));
    expect(deltas).toEqual([]);
  });

  it('stops with ABORTED when the signal fires mid-stream', async () => {
    const llm = new ScriptedLLM({
      script: [{ text: 'x'.repeat(100) }],
      stream: true,
      streamChunkChars: 1,
      streamDelayMs: 5,
    });
    const controller = new AbortController();
    const deltas: StreamDelta[] = [];
    const error = await llm
      .complete(
        hello(deltas, {
          signal: controller.signal,
          onStreamDelta: (delta) => {
            deltas.push(delta);
            if (deltas.length === 3) controller.abort();
          },
        }),
      )
      .catch((failure: unknown) => failure);
    expect(LLMError.isInstance(error, 'ABORTED')).toBe(true);
    expect(deltas).toHaveLength(3);
  });

  it('reports scripted usage and keeps its options in its JSON form', async () => {
    const llm = ScriptedLLM.fromConfig({
      kind: 'ScriptedLLM',
      script: [
        { text: 'a', usage: { prompt_tokens: 12, completion_tokens: 3, reasoning_tokens: 1 } },
      ],
      stream: true,
      stream_chunk_chars: 2,
      stream_delay_ms: 1,
      usage_id: 'agent',
      question_answer: 'forty-two',
    });
    expect(llm.usageId).toBe('agent');
    const completion = await llm.complete(hello([]));
    expect(completion.usage).toEqual({ inputTokens: 12, outputTokens: 3, reasoningTokens: 1 });
    expect(ScriptedLLM.fromConfig(llm.toConfig()).toConfig()).toEqual(llm.toConfig());
    expect(() =>
      ScriptedLLM.fromConfig({ kind: 'ScriptedLLM', script: [], stream_chunk_chars: 0 }),
    ).toThrow(/stream_chunk_chars/);
  });

  it('answers a side question without taking a step of its script', async () => {
    const llm = new ScriptedLLM({ script: [{ text: 'step zero' }] });
    const completion = await llm.complete({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'task' },
        { role: 'user', content: askAgentPrompt('What are you doing?') },
      ],
      tools: [],
    });
    expect(completion.message.content).toBe(
      'ScriptedLLM: asked "What are you doing?" after 2 messages.',
    );
    const next = await llm.complete({ messages: [{ role: 'user', content: 'task' }], tools: [] });
    expect(next.message.content).toBe('step zero');
  });
});
