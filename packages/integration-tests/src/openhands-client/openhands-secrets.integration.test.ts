import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { SECRET_MASK } from '@agent-workspace/protocol';
import { LLM } from '@agent-workspace/sdk';
import { OpenAICompatibleDouble } from '@agent-workspace/sdk/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// A loopback OpenAI-compatible model provider (a test double, not a mock of ours).

// As in openhands-remote-conversation: the client's ESM build needs a CommonJS `require` for `ws`.
const clientEntry = createRequire(import.meta.url).resolve('@openhands/typescript-client');
(globalThis as { require?: NodeJS.Require }).require ??= createRequire(clientEntry);
const { RemoteConversation, RemoteWorkspace } = await import('@openhands/typescript-client');

const KEY = 'secrets-client-key';
const TOKEN = 'ghs_integration_Secret_Value_0042';
/** The value and the encodings a command could print it in. */
const FORMS = [
  TOKEN,
  Buffer.from(TOKEN).toString('base64').slice(0, 24),
  Buffer.from(`${TOKEN}\n`).toString('base64'),
  Buffer.from(TOKEN).toString('hex'),
  encodeURIComponent(`${TOKEN} `),
];

function expectHidden(label: string, text: string): void {
  for (const form of FORMS) expect(text, `${label} holds ${form}`).not.toContain(form);
}

const call = (id: string, name: string, command: string) => ({
  id,
  name,
  arguments: JSON.stringify(name === 'terminal' ? { command } : { message: command }),
});

describe("the official OpenHands client's updateSecrets", () => {
  let t: TestServer;
  let stateDir: string;
  let model: OpenAICompatibleDouble;

  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'openhands-secrets-state-'));
    t = await startTestServer({ sessionApiKeys: [KEY], stateDir });
    model = await OpenAICompatibleDouble.start();
  });
  afterAll(async () => {
    await t.close();
    await model.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('gives the secret to a command while no event, page, file or model request shows it', async () => {
    model.reply(
      {
        kind: 'completion',
        toolCalls: [
          call(
            'call_1',
            'terminal',
            'printf %s "$MY_TOKEN" > client-secret.txt; echo "$MY_TOKEN" | base64; echo "$MY_TOKEN" | xxd -p; env | grep MY_TOKEN',
          ),
        ],
      },
      { kind: 'completion', toolCalls: [call('call_2', 'finish', 'used the token')] },
    );
    const llm = new LLM({
      model: 'openai/test-model',
      baseUrl: model.baseUrl,
      apiKey: 'sk-double',
    });
    const agent = {
      kind: 'Agent',
      llm: llm.toConfig({ includeApiKey: true }),
      tools: [{ name: 'TerminalTool' }],
    };
    const workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: KEY });
    const received: unknown[] = [];
    const conversation = new RemoteConversation(agent as never, workspace, {
      callback: (event) => received.push(event),
    });
    try {
      await conversation.start();
      await conversation.startWebSocketClient();
      // The client's signature: `Record<string, string | (() => string)>`; it sends
      // `{secrets: {MY_TOKEN: {kind: 'StaticSecret', value}}}`.
      await conversation.updateSecrets({ MY_TOKEN: TOKEN });
      await conversation.sendMessage('Use MY_TOKEN.');
      await conversation.run();
      await vi.waitFor(
        async () => expect(await conversation.getAgentFinalResponse()).toBe('used the token'),
        { timeout: 20_000, interval: 50 },
      );
      // Delivered: the command wrote the value.
      expect(await readFile(path.join(t.dir, 'client-secret.txt'), 'utf8')).toBe(TOKEN);

      await vi.waitFor(
        () =>
          expect(
            received.some((event) => (event as { kind?: string }).kind === 'ObservationEvent'),
          ).toBe(true),
        { timeout: 10_000, interval: 20 },
      );
      const socket = JSON.stringify(received);
      expectHidden('socket events', socket);
      expect(socket).toContain(SECRET_MASK);
      expect(socket).toContain(`MY_TOKEN=${SECRET_MASK}`);

      const page = await fetch(
        `${t.url}/api/conversations/${conversation.id}/events/search?limit=100`,
        { headers: { 'X-Session-API-Key': KEY } },
      );
      expectHidden('event pages', await page.text());
      expectHidden(
        'the model requests',
        JSON.stringify(model.chatRequests.map((request) => request.body)),
      );
      const zip = Buffer.from(await (await conversation.downloadTrajectory()).arrayBuffer());
      expect(zip.length).toBeGreaterThan(0);
      expectHidden('the trajectory zip', zip.toString('latin1'));
      const dir = path.join(stateDir, 'conversations', conversation.id);
      for (const file of await readdir(dir, { recursive: true })) {
        expectHidden(file, await readFile(path.join(dir, file), 'utf8').catch(() => ''));
      }
    } finally {
      await conversation.close();
    }
  });

  it('is refused with 422 for a reserved name', async () => {
    const workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: KEY });
    const agent = {
      kind: 'Agent',
      llm: new LLM({ model: 'openai/test-model', baseUrl: model.baseUrl, apiKey: 'x' }).toConfig(),
      tools: [{ name: 'TerminalTool' }],
    };
    const conversation = new RemoteConversation(agent as never, workspace, {});
    try {
      await conversation.start();
      await expect(conversation.updateSecrets({ LD_PRELOAD: '/tmp/evil.so' })).rejects.toThrow(
        /422/,
      );
    } finally {
      await conversation.close();
    }
  });
});
