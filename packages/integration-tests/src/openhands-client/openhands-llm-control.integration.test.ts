import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { LLM, ScriptedLLM } from '@agent-workspace/sdk';
// The loopback OpenAI-compatible test double (a real HTTP server standing in for a provider).
import { OpenAICompatibleDouble } from '@agent-workspace/sdk/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// As in openhands-remote-conversation: the client's ESM build needs a `require` for `ws`.
const clientEntry = createRequire(import.meta.url).resolve('@openhands/typescript-client');
(globalThis as { require?: NodeJS.Require }).require ??= createRequire(clientEntry);
const { RemoteConversation, RemoteWorkspace } = await import('@openhands/typescript-client');

const KEY = 'llm-control-client-key';

interface Received {
  kind?: string;
  key?: string;
  content?: string | null;
  reasoning_content?: string | null;
  value?: unknown;
}

describe("the official OpenHands client's model control (askAgent, switchLlm, stats, streaming)", () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ sessionApiKeys: [KEY] });
  });
  afterAll(() => t.close());

  async function connect(llm: Record<string, unknown>, received: Received[]) {
    const workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: KEY });
    const agent = { kind: 'Agent', llm, tools: [{ name: 'TerminalTool' }] };
    const conversation = new RemoteConversation(agent as never, workspace, {
      callback: (event) => received.push(event as Received),
    });
    await conversation.start();
    await conversation.startWebSocketClient();
    return conversation;
  }

  async function runUntil(
    conversation: Awaited<ReturnType<typeof connect>>,
    message: string,
    final: string | RegExp,
  ): Promise<void> {
    await conversation.sendMessage(message);
    await conversation.run();
    await vi.waitFor(
      async () => expect(await conversation.getAgentFinalResponse()).toMatch(final),
      { timeout: 20_000, interval: 50 },
    );
  }

  it('askAgent answers, switchLlm changes the next model call, conversationStats shows usage (ScriptedLLM)', async () => {
    const first = new ScriptedLLM({
      usageId: 'agent',
      questionAnswer: 'I said hello.',
      stream: true,
      streamChunkChars: 4,
      script: [
        {
          text: 'Hello from the first script.',
          usage: { prompt_tokens: 30, completion_tokens: 6 },
        },
      ],
    });
    const received: Received[] = [];
    const conversation = await connect(first.toConfig(), received);
    try {
      await runUntil(conversation, 'Say hello.', 'Hello from the first script.');
      await vi.waitFor(
        () => {
          const deltas = received.filter((event) => event.kind === 'StreamingDeltaEvent');
          expect(deltas.map((event) => event.content ?? '').join('')).toBe(
            'Hello from the first script.',
          );
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(received.some((event) => event.key === 'stats')).toBe(true);

      expect(await conversation.askAgent('What did you say?')).toBe('I said hello.');

      const second = new ScriptedLLM({
        usageId: 'switched',
        script: [{ text: 'unused' }, { text: 'Hello from the second script.' }],
      });
      await conversation.switchLlm(second.toConfig() as never);
      await runUntil(conversation, 'Again.', 'Hello from the second script.');

      // The client types stats loosely (`types/base.d.ts`); the server sends OpenHands' shape.
      const stats = (await conversation.conversationStats()) as unknown as {
        usage_to_metrics: Record<string, { accumulated_token_usage: { prompt_tokens: number } }>;
      };
      expect(Object.keys(stats.usage_to_metrics).sort()).toEqual(
        ['agent', 'ask-agent-llm', 'switched'].sort(),
      );
      expect(stats.usage_to_metrics.agent?.accumulated_token_usage.prompt_tokens).toBe(30);
    } finally {
      await conversation.close();
    }
  });

  it('streams a real model’s tokens and switches models on the OpenAI-compatible double', async () => {
    await using double = await OpenAICompatibleDouble.start({ apiKey: 'sk-double' });
    const llmOn = (model: string, usageId: string) =>
      new LLM({
        model,
        baseUrl: double.baseUrl,
        apiKey: 'sk-double',
        usageId,
        stream: true,
        maxRetries: 0,
        inputCostPerMillionTokens: 1,
        outputCostPerMillionTokens: 2,
        env: {},
      }).toConfig({ includeApiKey: true });
    double.reply(
      {
        kind: 'completion',
        reasoning: 'Let me think.',
        text: 'Streamed by the first model.',
        chunkChars: 5,
        usage: { promptTokens: 1000, completionTokens: 100, cachedTokens: 400 },
      },
      {
        kind: 'completion',
        text: 'Side answer.',
        usage: { promptTokens: 50, completionTokens: 5 },
      },
      {
        kind: 'completion',
        text: 'Streamed by the second model.',
        usage: { promptTokens: 2000, completionTokens: 200 },
      },
    );
    const received: Received[] = [];
    const conversation = await connect({ ...llmOn('openai/first-model', 'agent') }, received);
    try {
      await runUntil(conversation, 'Stream something.', 'Streamed by the first model.');
      const deltas = received.filter((event) => event.kind === 'StreamingDeltaEvent');
      expect(deltas.map((event) => event.reasoning_content ?? '').join('')).toBe('Let me think.');
      expect(deltas.map((event) => event.content ?? '').join('')).toBe(
        'Streamed by the first model.',
      );

      expect(await conversation.askAgent('Anything to add?')).toBe('Side answer.');
      await conversation.switchLlm(llmOn('openai/second-model', 'agent') as never);
      await runUntil(conversation, 'Again.', 'Streamed by the second model.');

      const models = double.chatRequests.map(
        (request) => (request.body as { model: string }).model,
      );
      expect(models).toEqual(['first-model', 'first-model', 'second-model']);
      expect((double.chatRequests[1]?.body as { stream?: boolean } | undefined)?.stream).not.toBe(
        true,
      );
      // The client types stats loosely (`types/base.d.ts`); the server sends OpenHands' shape.
      const stats = (await conversation.conversationStats()) as unknown as {
        usage_to_metrics: Record<
          string,
          {
            model_name: string;
            accumulated_cost: number;
            accumulated_token_usage: { prompt_tokens: number; cache_read_tokens: number };
          }
        >;
      };
      expect(stats.usage_to_metrics.agent).toMatchObject({
        model_name: 'openai/first-model',
        accumulated_token_usage: { prompt_tokens: 1000, cache_read_tokens: 400 },
      });
      expect(stats.usage_to_metrics.agent?.accumulated_cost).toBeCloseTo(
        (1000 * 1 + 100 * 2) / 1_000_000,
      );
      expect(stats.usage_to_metrics['agent:openai/second-model']?.model_name).toBe(
        'openai/second-model',
      );
      expect(stats.usage_to_metrics['ask-agent-llm']?.accumulated_token_usage.prompt_tokens).toBe(
        50,
      );
    } finally {
      await conversation.close();
    }
  });
});
