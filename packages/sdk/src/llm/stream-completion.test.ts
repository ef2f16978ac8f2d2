import { afterEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleDouble } from '../testing/openai-compatible-double.js';
import type { CompletionRequest, ToolSpec } from './language-model.js';
import { LLM } from './llm.js';
import { LLMError } from './llm-error.js';
import type { LLMOptions } from './llm-options.js';
import type { StreamDelta } from './stream-completion.js';

const doubles: OpenAICompatibleDouble[] = [];

afterEach(async () => {
  await Promise.all(doubles.splice(0).map((double) => double.close()));
});

async function streamingLLM(options: LLMOptions = {}) {
  const double = await OpenAICompatibleDouble.start();
  doubles.push(double);
  const llm = new LLM({
    model: 'openai/test-model',
    baseUrl: double.baseUrl,
    apiKey: 'sk-test',
    retryMinWaitMs: 1,
    retryMaxWaitMs: 20,
    env: {},
    stream: true,
    ...options,
  });
  return { double, llm };
}

const terminal: ToolSpec = {
  name: 'terminal',
  description: 'Runs a bash command.',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
  },
};

function request(deltas: StreamDelta[], extra: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    messages: [{ role: 'user', content: 'Say hello.' }],
    tools: [],
    onStreamDelta: (delta) => deltas.push(delta),
    ...extra,
  };
}

describe('LLM with stream: true (OpenAI-compatible double over SSE)', () => {
  it('streams text deltas that assemble to the answer, with the usage of the stream', async () => {
    const { double, llm } = await streamingLLM({
      inputCostPerMillionTokens: 2,
      outputCostPerMillionTokens: 8,
    });
    double.reply({
      kind: 'completion',
      id: 'chatcmpl-streamed',
      text: 'Hello there, streaming world!',
      chunkChars: 5,
      usage: { promptTokens: 1000, completionTokens: 500, cachedTokens: 200, reasoningTokens: 7 },
    });
    const deltas: StreamDelta[] = [];
    const completion = await llm.complete(request(deltas));

    expect(deltas.length).toBe(6);
    expect(deltas.map((delta) => delta.content).join('')).toBe('Hello there, streaming world!');
    expect(completion.message).toEqual({
      role: 'assistant',
      content: 'Hello there, streaming world!',
    });
    expect(completion.id).toBe('chatcmpl-streamed');
    expect(completion.usage).toEqual({
      inputTokens: 1000,
      outputTokens: 500,
      cacheReadTokens: 200,
      reasoningTokens: 7,
    });
    expect(completion.costUsd).toBeCloseTo((1000 * 2 + 500 * 8) / 1_000_000);
    const body = double.chatRequests[0]?.body as Record<string, unknown>;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(llm.toConfig().stream).toBe(true);
  });

  it('streams reasoning as reasoning deltas, kept out of the answer', async () => {
    const { double, llm } = await streamingLLM();
    double.reply({ kind: 'completion', reasoning: 'Think first.', text: 'Done.', chunkChars: 6 });
    const deltas: StreamDelta[] = [];
    const completion = await llm.complete(request(deltas));
    expect(deltas.flatMap((delta) => delta.reasoningContent ?? []).join('')).toBe('Think first.');
    expect(deltas.flatMap((delta) => delta.content ?? []).join('')).toBe('Done.');
    expect(completion.message.content).toBe('Done.');
  });

  it('assembles streamed tool calls with their raw arguments', async () => {
    const { double, llm } = await streamingLLM();
    double.reply({
      kind: 'completion',
      text: 'Listing.',
      toolCalls: [{ id: 'call_1', name: 'terminal', arguments: '{"command": "ls -la"}' }],
    });
    const deltas: StreamDelta[] = [];
    const completion = await llm.complete(request(deltas, { tools: [terminal] }));
    expect(completion.message.toolCalls).toEqual([
      { id: 'call_1', name: 'terminal', arguments: '{"command": "ls -la"}' },
    ]);
    expect(completion.message.content).toBe('Listing.');
  });

  it('is cancelled mid-stream by the signal, with ABORTED', async () => {
    const { double, llm } = await streamingLLM();
    double.reply({
      kind: 'completion',
      text: 'a long answer that streams slowly, piece by piece',
      chunkChars: 2,
      chunkDelayMs: 50,
    });
    const controller = new AbortController();
    const deltas: StreamDelta[] = [];
    const promise = llm.complete(
      request(deltas, {
        signal: controller.signal,
        onStreamDelta: (delta) => {
          deltas.push(delta);
          if (deltas.length === 3) controller.abort();
        },
      }),
    );
    const error = await promise.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(LLMError.isInstance(error, 'ABORTED')).toBe(true);
    expect(deltas.length).toBeLessThan(10);
  });

  it('retries a stream that fails before it starts, as a whole answer would', async () => {
    const { double, llm } = await streamingLLM();
    double.reply(
      { kind: 'error', status: 503, message: 'overloaded' },
      { kind: 'completion', text: 'Second time lucky.' },
    );
    const deltas: StreamDelta[] = [];
    const completion = await llm.complete(request(deltas));
    expect(completion.message.content).toBe('Second time lucky.');
    expect(double.chatRequests).toHaveLength(2);
  });

  it('does not stream without stream: true', async () => {
    const { double, llm } = await streamingLLM({ stream: undefined });
    double.reply({ kind: 'completion', text: 'Whole.' });
    const deltas: StreamDelta[] = [];
    const completion = await llm.complete(request(deltas));
    expect(completion.message.content).toBe('Whole.');
    expect(deltas).toEqual([]);
    expect((double.chatRequests[0]?.body as { stream?: unknown } | undefined)?.stream).not.toBe(
      true,
    );
  });

  it('answers whole a request without onStreamDelta, even with stream: true', async () => {
    const { double, llm } = await streamingLLM();
    double.reply({ kind: 'completion', text: 'Whole anyway.' });
    const completion = await llm.complete({
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [],
    });
    expect(completion.message.content).toBe('Whole anyway.');
    expect((double.chatRequests[0]?.body as { stream?: unknown } | undefined)?.stream).not.toBe(
      true,
    );
  });

  it('takes stream from its JSON config (OpenHands’ field)', () => {
    const llm = LLM.fromConfig({ model: 'openai/x', stream: true, api_key: 'sk' });
    expect(llm.toConfig()).toMatchObject({ stream: true });
  });
});
