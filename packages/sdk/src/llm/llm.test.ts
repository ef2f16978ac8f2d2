import { inspect } from 'node:util';
import { WorkspaceError } from '@agent-workspace/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenAICompatibleDouble } from '../testing/openai-compatible-double.js';
import type { CompletionRequest, ToolSpec } from './language-model.js';
import { LLM } from './llm.js';
import { LLMError, type LLMErrorCode } from './llm-error.js';
import type { LLMOptions, LLMRetryEvent } from './llm-options.js';

const doubles: OpenAICompatibleDouble[] = [];

async function startDouble(options?: { apiKey?: string }): Promise<OpenAICompatibleDouble> {
  const double = await OpenAICompatibleDouble.start(options);
  doubles.push(double);
  return double;
}

afterEach(async () => {
  await Promise.all(doubles.splice(0).map((double) => double.close()));
});

/** An LLM on the double with tiny backoffs and no environment. */
function llmOn(double: OpenAICompatibleDouble, options: LLMOptions = {}): LLM {
  return new LLM({
    model: 'openai/test-model',
    baseUrl: double.baseUrl,
    apiKey: 'sk-test',
    retryMinWaitMs: 1,
    retryMaxWaitMs: 20,
    env: {},
    ...options,
  });
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

const finish: ToolSpec = {
  name: 'finish',
  description: 'Ends the task.',
  parameters: { type: 'object', properties: { message: { type: 'string' } } },
};

const hello: CompletionRequest = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
  tools: [],
};

/** The rejection of `promise`, which must be an `LLMError` of `code`. */
async function llmErrorOf(promise: Promise<unknown>, code: LLMErrorCode): Promise<LLMError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(LLMError.isInstance(error), `rejected with ${String(error)}`).toBe(true);
  expect((error as LLMError).code).toBe(code);
  return error as LLMError;
}

describe('LLM against an OpenAI-compatible double', () => {
  it('answers with text, sending the transcript, the model name and the key', async () => {
    const double = await startDouble();
    double.reply({ kind: 'completion', id: 'chatcmpl-42', text: 'Hello.' });

    const completion = await llmOn(double).complete(hello);

    expect(completion.id).toBe('chatcmpl-42');
    expect(completion.message).toEqual({ role: 'assistant', content: 'Hello.' });
    const [request] = double.chatRequests;
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.body).toMatchObject({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello.' },
      ],
    });
    expect(request?.body).not.toHaveProperty('tools');
  });

  it('sends tools as JSON Schema and returns tool calls with their raw argument text', async () => {
    const double = await startDouble();
    double.reply({
      kind: 'completion',
      text: null,
      toolCalls: [
        { id: 'call_1', name: 'terminal', arguments: '{"command":  "ls -la"}' },
        { id: 'call_2', name: 'finish', arguments: '{"message": "done"' },
        { id: 'call_3', name: 'browse', arguments: '{}' },
      ],
    });

    const completion = await llmOn(double).complete({
      messages: [{ role: 'user', content: 'List the files.' }],
      tools: [terminal, finish],
    });

    expect(completion.message).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_1', name: 'terminal', arguments: '{"command":  "ls -la"}' },
        // Malformed and unknown calls come back as written: the agent loop answers them.
        { id: 'call_2', name: 'finish', arguments: '{"message": "done"' },
        { id: 'call_3', name: 'browse', arguments: '{}' },
      ],
    });
    expect(double.chatRequests[0]?.body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'terminal',
            description: 'Runs a bash command.',
            parameters: terminal.parameters,
          },
        },
        { type: 'function', function: { name: 'finish', parameters: finish.parameters } },
      ],
    });
  });

  it('sends tool results back as OpenAI tool messages answering the calls', async () => {
    const double = await startDouble();
    double.reply({ kind: 'completion', text: 'There is one file.' });

    const completion = await llmOn(double).complete({
      messages: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'List the files.' },
        {
          role: 'assistant',
          content: 'Let me look.',
          toolCalls: [
            { id: 'call_1', name: 'terminal', arguments: '{"command": "ls"}' },
            { id: 'call_2', name: 'finish', arguments: '{"message": ' },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', content: 'file.txt' },
        { role: 'tool', toolCallId: 'call_2', toolName: 'finish', content: 'invalid JSON' },
      ],
      tools: [terminal, finish],
    });

    expect(completion.message.content).toBe('There is one file.');
    expect(double.chatRequests[0]?.body).toHaveProperty('messages', [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'List the files.' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'terminal', arguments: '{"command": "ls"}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'finish', arguments: JSON.stringify('{"message": ') },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'file.txt' },
      { role: 'tool', tool_call_id: 'call_2', content: 'invalid JSON' },
    ]);
  });

  it('reports usage, prices it, and sums both in metrics', async () => {
    const double = await startDouble();
    double.reply(
      { kind: 'completion', text: 'a', usage: { promptTokens: 1000, completionTokens: 500 } },
      { kind: 'completion', text: 'b', usage: { promptTokens: 3000, completionTokens: 100 } },
    );
    const llm = llmOn(double, { inputCostPerMillionTokens: 2.5, outputCostPerMillionTokens: 10 });

    const first = await llm.complete(hello);
    const second = await llm.complete(hello);

    expect(first.usage).toEqual({ inputTokens: 1000, outputTokens: 500 });
    expect(first.costUsd).toBeCloseTo(0.0025 + 0.005, 12);
    expect(second.costUsd).toBeCloseTo(0.0075 + 0.001, 12);
    const metrics = llm.metrics;
    expect(metrics).toMatchObject({ calls: 2, inputTokens: 4000, outputTokens: 600 });
    expect(metrics.costUsd).toBeCloseTo(0.016, 12);
  });

  it('leaves the cost out when no price is known', async () => {
    const double = await startDouble();
    double.reply({ kind: 'completion', text: 'a' });
    const llm = llmOn(double);

    const completion = await llm.complete(hello);

    expect(completion.costUsd).toBeUndefined();
    expect(llm.metrics).toEqual({ calls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0 });
  });
});

describe('LLM retries', () => {
  it('retries a 429 after the Retry-After the provider asked for, then succeeds', async () => {
    const double = await startDouble();
    double.reply(
      { kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after-ms': '7' } },
      { kind: 'completion', text: 'ok' },
    );
    const retries: LLMRetryEvent[] = [];
    const llm = llmOn(double, { onRetry: (event) => retries.push(event) });

    const completion = await llm.complete(hello);

    expect(completion.message.content).toBe('ok');
    expect(double.chatRequests).toHaveLength(2);
    expect(retries.map(({ retry, delayMs }) => ({ retry, delayMs }))).toEqual([
      { retry: 1, delayMs: 7 },
    ]);
    expect(retries[0]?.error.code).toBe('LLM_RATE_LIMITED');
    expect(llm.metrics.calls).toBe(1);
  });

  it('caps a Retry-After at retryMaxWaitMs', async () => {
    const double = await startDouble();
    double.reply(
      { kind: 'error', status: 429, headers: { 'retry-after': '3600' } },
      { kind: 'completion', text: 'ok' },
    );
    const delays: number[] = [];
    const llm = llmOn(double, { onRetry: ({ delayMs }) => delays.push(delayMs) });

    await llm.complete(hello);

    expect(delays).toEqual([20]);
  });

  it('retries a 500 then succeeds', async () => {
    const double = await startDouble();
    double.reply(
      { kind: 'error', status: 500, message: 'boom' },
      { kind: 'completion', text: 'recovered' },
    );

    const completion = await llmOn(double).complete(hello);

    expect(completion.message.content).toBe('recovered');
    expect(double.chatRequests).toHaveLength(2);
  });

  it('backs off exponentially and gives up after maxRetries with the last failure', async () => {
    const double = await startDouble();
    double.reply(
      { kind: 'error', status: 503, message: 'overloaded' },
      { kind: 'error', status: 502, message: 'bad gateway' },
      { kind: 'error', status: 500, message: 'still down' },
      { kind: 'completion', text: 'never reached' },
    );
    const delays: number[] = [];
    const llm = llmOn(double, {
      maxRetries: 2,
      retryMinWaitMs: 2,
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });

    const error = await llmErrorOf(llm.complete(hello), 'LLM_SERVER_ERROR');

    expect(double.chatRequests).toHaveLength(3);
    expect(delays).toEqual([2, 4]);
    expect(error.details).toMatchObject({ status: 500, attempts: 3, model: 'openai/test-model' });
    expect(error.message).toContain('still down');
    expect(error.message).toContain('after 3 attempts');
    expect(WorkspaceError.isInstance(error, 'LLM_SERVER_ERROR')).toBe(true);
    expect(llm.metrics.calls).toBe(0);
  });

  it('gives up on a provider that keeps rate limiting', async () => {
    const double = await startDouble();
    double.reply({ kind: 'error', status: 429 }, { kind: 'error', status: 429 });

    await llmErrorOf(llmOn(double, { maxRetries: 1 }).complete(hello), 'LLM_RATE_LIMITED');

    expect(double.chatRequests).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    const double = await startDouble();
    double.reply(
      { kind: 'error', status: 400, message: 'messages: bad sequence' },
      { kind: 'completion', text: 'never reached' },
    );

    const error = await llmErrorOf(llmOn(double).complete(hello), 'LLM_BAD_REQUEST');

    expect(double.chatRequests).toHaveLength(1);
    expect(error.message).toContain('messages: bad sequence');
  });

  it('tells a context window overflow apart', async () => {
    const double = await startDouble();
    double.reply({
      kind: 'error',
      status: 400,
      message: "This model's maximum context length is 8192 tokens.",
      code: 'context_length_exceeded',
    });

    const error = await llmErrorOf(llmOn(double).complete(hello), 'LLM_CONTEXT_WINDOW_EXCEEDED');

    expect(error.details.providerCode).toBe('context_length_exceeded');
    expect(double.chatRequests).toHaveLength(1);
  });

  it('does not retry a 401 and keeps the key out of the error, even when echoed', async () => {
    const secret = 'sk-wrong-secret-1234567890';
    const double = await startDouble({ apiKey: 'sk-right' });
    const llm = llmOn(double, { apiKey: secret });

    const error = await llmErrorOf(llm.complete(hello), 'LLM_AUTHENTICATION');

    expect(double.chatRequests).toHaveLength(1);
    // The double echoed the key; it reached us, and we redacted it.
    expect(error.message).toContain('Incorrect API key provided: [REDACTED]');
    expect(error.message).not.toContain(secret);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(secret);
    expect(JSON.stringify(error.details)).not.toContain(secret);
  });

  it('retries a connection failure and then reports it', async () => {
    const double = await startDouble();
    await double.close(); // Nobody listens on its port any more.
    const retries: LLMRetryEvent[] = [];
    const llm = llmOn(double, { maxRetries: 1, onRetry: (event) => retries.push(event) });

    await llmErrorOf(llm.complete(hello), 'LLM_CONNECTION');

    expect(retries.map(({ error }) => error.code)).toEqual(['LLM_CONNECTION']);
  });
});

describe('LLM timeouts and aborts', () => {
  it('times out each attempt while the double hangs, retries, then fails typed', async () => {
    const double = await startDouble();
    double.reply({ kind: 'hang' }, { kind: 'hang' });
    const retries: LLMRetryEvent[] = [];
    const llm = llmOn(double, {
      timeoutMs: 250,
      maxRetries: 1,
      onRetry: (event) => retries.push(event),
    });

    const error = await llmErrorOf(llm.complete(hello), 'LLM_TIMEOUT');

    expect(error.message).toContain('no answer within 250 ms');
    expect(retries.map(({ error: failure }) => failure.code)).toEqual(['LLM_TIMEOUT']);
    expect(double.chatRequests).toHaveLength(2);
  });

  it('stops with ABORTED when the caller aborts during a request', async () => {
    const double = await startDouble();
    double.reply({ kind: 'hang' });
    const controller = new AbortController();

    const pending = llmOn(double).complete({ ...hello, signal: controller.signal });
    await vi.waitFor(() => expect(double.chatRequests).toHaveLength(1));
    controller.abort(new Error('user pressed stop'));

    const error = await llmErrorOf(pending, 'ABORTED');
    expect(error.cause).toEqual(new Error('user pressed stop'));
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
  });

  it('stops with ABORTED when the caller aborts during a backoff', async () => {
    const double = await startDouble();
    double.reply({ kind: 'error', status: 503 }, { kind: 'completion', text: 'too late' });
    const controller = new AbortController();
    const llm = llmOn(double, {
      retryMinWaitMs: 60_000,
      retryMaxWaitMs: 60_000,
      onRetry: () => controller.abort(),
    });

    await llmErrorOf(llm.complete({ ...hello, signal: controller.signal }), 'ABORTED');

    expect(double.chatRequests).toHaveLength(1);
  });

  it('sends nothing when the signal has already fired', async () => {
    const double = await startDouble();

    await llmErrorOf(llmOn(double).complete({ ...hello, signal: AbortSignal.abort() }), 'ABORTED');

    expect(double.requests).toHaveLength(0);
  });
});

describe('LLM bad responses', () => {
  const cases: Array<[string, string]> = [
    ['malformed JSON', '{"id": "chatcmpl-1", "choices": ['],
    ['no choices', '{"id": "chatcmpl-1", "object": "chat.completion"}'],
    ['empty choices', '{"id": "chatcmpl-1", "object": "chat.completion", "choices": []}'],
  ];
  for (const [name, body] of cases) {
    it(`reports ${name} as LLM_BAD_RESPONSE without retrying`, async () => {
      const double = await startDouble();
      double.reply({ kind: 'raw', body }, { kind: 'completion', text: 'never reached' });

      await llmErrorOf(llmOn(double).complete(hello), 'LLM_BAD_RESPONSE');

      expect(double.chatRequests).toHaveLength(1);
    });
  }
});

describe('LLM configuration', () => {
  it('reads LLM_MODEL, LLM_BASE_URL and LLM_API_KEY from the environment', async () => {
    const double = await startDouble({ apiKey: 'sk-from-env' });
    double.reply({ kind: 'completion', text: 'configured' });
    const llm = new LLM({
      env: { LLM_MODEL: 'openai/x', LLM_BASE_URL: double.baseUrl, LLM_API_KEY: 'sk-from-env' },
    });

    const completion = await llm.complete(hello);

    expect(completion.message.content).toBe('configured');
    expect(llm.model).toBe('openai/x');
    expect(double.chatRequests[0]?.body).toMatchObject({ model: 'x' });
    expect(llm.toConfig({ includeApiKey: true })).toEqual({
      kind: 'LLM',
      model: 'openai/x',
      base_url: double.baseUrl,
      api_key: 'sk-from-env',
    });
  });

  it('lets options win over the environment, and falls back to OPENAI_API_KEY', () => {
    const llm = new LLM({
      model: 'openai/y',
      env: { LLM_MODEL: 'openai/x', OPENAI_API_KEY: 'sk-openai' },
    });

    expect(llm.model).toBe('openai/y');
    expect(llm.toConfig({ includeApiKey: true }).api_key).toBe('sk-openai');
  });

  it('speaks OpenAI chat completions for any provider prefix given a base URL', async () => {
    const double = await startDouble();
    double.reply({ kind: 'completion', text: 'from vllm' });
    const llm = llmOn(double, { model: 'hosted_vllm/Qwen/Qwen3-8B' });

    await llm.complete(hello);

    expect(double.chatRequests[0]?.body).toMatchObject({ model: 'Qwen/Qwen3-8B' });
  });

  it('refuses an unknown provider without a base URL, naming the field', () => {
    let error: unknown;
    try {
      new LLM({ model: 'mystery/model-1', env: {} });
    } catch (caught) {
      error = caught;
    }
    expect(LLMError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as LLMError).details.field).toBe('model');
    expect((error as LLMError).message).toContain('mystery');
  });

  it('routes anthropic/ models to the Anthropic messages API', async () => {
    const double = await startDouble();
    const llm = llmOn(double, { model: 'anthropic/claude-test', apiKey: 'sk-ant-test' });

    // The double only speaks OpenAI: its 404 proves where the request went.
    await llmErrorOf(llm.complete(hello), 'LLM_BAD_REQUEST');

    const [request] = double.requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe('sk-ant-test');
    expect(request?.body).toMatchObject({
      model: 'claude-test',
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }],
    });
  });

  it('fails an Anthropic call without a key before sending anything', async () => {
    const double = await startDouble();
    const llm = llmOn(double, { model: 'anthropic/claude-test', apiKey: undefined });

    await llmErrorOf(llm.complete(hello), 'LLM_AUTHENTICATION');

    expect(double.requests).toHaveLength(0);
  });

  it('refuses a tool message that answers no call, naming the field', async () => {
    const double = await startDouble();
    const request: CompletionRequest = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'orphan' },
      ],
      tools: [],
    };

    const error = await llmErrorOf(llmOn(double).complete(request), 'INVALID_ARGUMENT');

    expect(error.details.field).toBe('messages[1].toolCallId');
    expect(double.requests).toHaveLength(0);
  });
});
