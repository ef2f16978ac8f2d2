import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { ScriptedLLM } from '@agent-workspace/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// As in openhands-remote-conversation: the client's ESM build needs a CommonJS `require` for `ws`.
const clientEntry = createRequire(import.meta.url).resolve('@openhands/typescript-client');
(globalThis as { require?: NodeJS.Require }).require ??= createRequire(clientEntry);
const { RemoteConversation, RemoteWorkspace } = await import('@openhands/typescript-client');
const { ConversationClient } = await import('@openhands/typescript-client/clients');

const KEY = 'conversation-control-key';

/** The entries of a zip (read through its central directory; stored or deflated entries). */
function unzip(buffer: Buffer): Map<string, string> {
  const end = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const count = buffer.readUInt16LE(end + 10);
  let at = buffer.readUInt32LE(end + 16);
  const entries = new Map<string, string>();
  for (let index = 0; index < count; index++) {
    const method = buffer.readUInt16LE(at + 10);
    const size = buffer.readUInt32LE(at + 20);
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    const local = buffer.readUInt32LE(at + 42);
    const name = buffer.toString('utf8', at + 46, at + 46 + nameLength);
    const dataStart =
      local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
    const data = buffer.subarray(dataStart, dataStart + size);
    entries.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The agent JSON the client sends as is: our ScriptedLLM stands in for a model. */
function agentOf(commands: string[], condenser?: Record<string, unknown>) {
  const llm = new ScriptedLLM({
    script: [
      ...commands.map((command) => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] })),
      { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
    ],
  });
  return {
    kind: 'Agent',
    llm: llm.toConfig(),
    tools: [{ name: 'TerminalTool' }],
    ...(condenser === undefined ? {} : { condenser }),
  };
}

describe("the official OpenHands client's conversation control", () => {
  let t: TestServer;
  let client: InstanceType<typeof ConversationClient>;
  let stateDir: string;

  beforeAll(async () => {
    // A state dir: the trajectory is the conversation's persisted directory.
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'openhands-control-state-'));
    t = await startTestServer({ sessionApiKeys: [KEY], stateDir });
    client = new ConversationClient({ host: t.url, apiKey: KEY });
  });
  afterAll(async () => {
    await t.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  async function finishedConversation(agent: object) {
    const workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: KEY });
    const conversation = new RemoteConversation(agent as never, workspace, {});
    await conversation.start({ initialMessage: 'Go.' });
    await conversation.run();
    await vi.waitFor(
      async () =>
        expect((await client.getConversation(conversation.id)).execution_status).toBe('finished'),
      { timeout: 20_000, interval: 50 },
    );
    return conversation;
  }
  const kindsOf = async (id: string) =>
    (await client.searchEvents(id, { limit: 100 })).items.map(
      (event) => (event as { kind: string }).kind,
    );

  it('condense() records a Condensation, setTitle() shows in the info, downloadTrajectory() zips the events', async () => {
    const conversation = await finishedConversation(
      agentOf(['echo one', 'echo two', 'echo three'], {
        kind: 'RollingWindowCondenser',
        max_size: 100,
        keep_first: 1,
      }),
    );
    try {
      await conversation.condense();
      expect((await kindsOf(conversation.id)).slice(-2)).toEqual([
        'CondensationRequest',
        'Condensation',
      ]);

      await conversation.setTitle('Three echoes');
      expect((await client.getConversation(conversation.id)).title).toBe('Three echoes');

      const blob = await conversation.downloadTrajectory();
      const entries = unzip(Buffer.from(await (blob as Blob).arrayBuffer()));
      const eventsFile = [...entries.keys()].find((name) => name.endsWith('events.jsonl'));
      expect(eventsFile).toBeDefined();
      const kinds = entries
        .get(eventsFile!)!
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { kind: string }).kind);
      expect(kinds).toContain('ActionEvent');
      expect(kinds.slice(-1)).toEqual(['Condensation']);
    } finally {
      await conversation.close();
    }
  });

  it('condense() without a condenser is refused', async () => {
    const conversation = await finishedConversation(agentOf(['echo one']));
    try {
      await expect(conversation.condense()).rejects.toThrow();
    } finally {
      await conversation.close();
    }
  });

  it('fork() returns a conversation with the events, linked to its source', async () => {
    const conversation = await finishedConversation(agentOf(['echo one']));
    try {
      const fork = await conversation.fork({ title: 'Forked' });
      try {
        expect(fork.id).not.toBe(conversation.id);
        const info = await client.getConversation(fork.id);
        expect(info).toMatchObject({
          title: 'Forked',
          execution_status: 'idle',
          forked_from_conversation_id: conversation.id,
        });
        expect(await kindsOf(fork.id)).toEqual(await kindsOf(conversation.id));
      } finally {
        await fork.close();
      }
    } finally {
      await conversation.close();
    }
  });

  it('interruptConversation() stops a running command at once and leaves the status paused', async () => {
    const workspace = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: KEY });
    const conversation = new RemoteConversation(agentOf(['sleep 60']) as never, workspace, {});
    try {
      await conversation.start({ initialMessage: 'Wait.' });
      await client.runConversation(conversation.id);
      await vi.waitFor(
        async () => expect(await kindsOf(conversation.id)).toContain('ActionEvent'),
        {
          timeout: 20_000,
          interval: 50,
        },
      );
      const started = Date.now();
      expect(await client.interruptConversation(conversation.id)).toEqual({ success: true });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await client.getConversation(conversation.id)).execution_status).toBe('paused');
      expect(await kindsOf(conversation.id)).toContain('InterruptEvent');
    } finally {
      await conversation.close();
    }
  });
});
