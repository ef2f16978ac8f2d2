import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { ScriptedLLM } from '@agent-workspace/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The client's ESM build loads `ws` with a bare `require('ws')`, which exists in CommonJS and
// bundlers but not in Node's ES modules, where its websocket silently never connects. Give it the
// `require` it expects, resolving from the client's own dependencies, before it loads.
const clientEntry = createRequire(import.meta.url).resolve('@openhands/typescript-client');
(globalThis as { require?: NodeJS.Require }).require ??= createRequire(clientEntry);
const { RemoteConversation, RemoteWorkspace } = await import('@openhands/typescript-client');

const KEY = 'conversation-client-key';
const FINAL = 'hello.txt is written';

describe("the official OpenHands client's RemoteConversation", () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ sessionApiKeys: [KEY] });
  });
  afterAll(() => t.close());

  it('starts with an initial message, runs, streams events and reads the final response', async () => {
    const workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: KEY });
    // The agent JSON the client sends as is: our ScriptedLLM stands in for a model (none is
    // reachable here), with the tool names the official clients use.
    const llm = new ScriptedLLM({
      script: [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hi > hello.txt' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: FINAL } }] },
      ],
    });
    const agent = {
      kind: 'Agent',
      llm: llm.toConfig(),
      tools: [{ name: 'TerminalTool' }, { name: 'FileEditorTool' }, { name: 'TaskTrackerTool' }],
    };
    const received: Array<{ kind?: string }> = [];
    const conversation = new RemoteConversation(agent as never, workspace, {
      callback: (event) => received.push(event as { kind?: string }),
    });
    try {
      await conversation.start({ initialMessage: 'Write hello.txt saying hi.' });
      await conversation.startWebSocketClient();
      await conversation.run();
      await vi.waitFor(async () => expect(await conversation.getAgentFinalResponse()).toBe(FINAL), {
        timeout: 20_000,
        interval: 50,
      });
      expect(await readFile(path.join(t.dir, 'hello.txt'), 'utf8')).toBe('hi\n');
      await vi.waitFor(
        () => {
          const kinds = received.map((event) => event.kind);
          expect(kinds).toContain('ActionEvent');
          expect(kinds).toContain('ObservationEvent');
        },
        { timeout: 10_000, interval: 20 },
      );
    } finally {
      await conversation.close();
    }
  });
});
