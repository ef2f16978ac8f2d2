import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, WorkspaceError } from '@agent-workspace/core';
import {
  type ConversationEventWire,
  conversationEventWireSchema,
  type ObservationEventWire,
} from '@agent-workspace/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import type { CompletionRequest, LanguageModel } from '../llm/language-model.js';
import type { StoredEvent } from './conversation-store.js';
import { EVENTS_FILE } from './conversation-store.js';
import { LocalConversation } from './local-conversation.js';

let root: string;
let workingDir: string;
let persistenceDir: string;
let workspace: LocalWorkspace;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'conversation-history-'));
  workingDir = root;
  persistenceDir = path.join(root, 'conversation');
  workspace = new LocalWorkspace({ workingDir });
});

afterEach(async () => {
  await workspace.close();
  await rm(root, { recursive: true, force: true });
});

/**
 * A model that runs `commands` with the terminal, one per step, then finishes. It counts its
 * own calls: once memory drops old events the transcript no longer shows every earlier answer.
 */
function commandsModel(commands: string[]): LanguageModel & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  return {
    model: 'commands',
    requests,
    async complete(request) {
      requests.push(request);
      const step = requests.length - 1;
      const command = commands[step];
      const call =
        command === undefined
          ? { name: 'finish', arguments: JSON.stringify({ message: 'done' }) }
          : { name: 'terminal', arguments: JSON.stringify({ command }) };
      return {
        id: `response-${step}`,
        message: { role: 'assistant', content: '', toolCalls: [{ id: `call_${step}`, ...call }] },
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    },
  };
}

async function collect(events: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const found: StoredEvent[] = [];
  for await (const entry of events) found.push(entry);
  return found;
}

async function fileEvents(): Promise<ConversationEventWire[]> {
  const text = await readFile(path.join(persistenceDir, EVENTS_FILE), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => conversationEventWireSchema.parse(JSON.parse(line)));
}

/** Prints `bytes` letters. */
const print = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' a`;

const limits = { maxEventBytes: 16 * 1024, maxMemoryBytes: 64 * 1024, maxDiskBytes: 1024 ** 2 };

describe('LocalConversation history bounds', () => {
  it('keeps the newest events in memory and reads the whole history from disk, either way', async () => {
    const llm = commandsModel(Array.from({ length: 20 }, (_, step) => print(6000 + step)));
    const agent = new Agent({ llm, tools: ['TerminalTool'] });
    await using conversation = await LocalConversation.create({
      agent,
      workspace,
      persistenceDir,
      history: limits,
    });
    await conversation.sendMessage('Print a lot.');
    expect(await conversation.run()).toBe('finished');

    const onDisk = await fileEvents();
    expect(onDisk.length).toBeGreaterThan(40);
    expect(conversation.history.memoryBytes).toBeLessThanOrEqual(limits.maxMemoryBytes);
    expect(conversation.events.length).toBeLessThan(onDisk.length);
    // Memory holds the newest events, which the model was shown (and nothing older).
    expect(conversation.events.toArray()).toEqual(onDisk.slice(-conversation.events.length));
    const lastTranscript = llm.requests.at(-1)!.messages;
    expect(lastTranscript.filter((message) => message.role === 'user')).toHaveLength(0);

    const forward = await collect(conversation.history.read());
    expect(forward.map((entry) => entry.event)).toEqual(onDisk);
    for (let index = 1; index < forward.length; index++) {
      expect(forward[index]!.position).toBe(
        forward[index - 1]!.position + forward[index - 1]!.bytes,
      );
    }
    const backward = await collect(conversation.history.read({ direction: 'backward' }));
    expect(backward).toEqual([...forward].reverse());

    // Cursors: from a position on, and before one, across the disk/memory seam.
    const seam = forward.length - conversation.events.length;
    for (const at of [3, seam - 1, seam, seam + 1]) {
      const from = await collect(conversation.history.read({ from: forward[at]!.position }));
      expect(from).toEqual(forward.slice(at));
      const { position, bytes } = forward[at]!;
      const before = await collect(
        conversation.history.read({ direction: 'backward', before: position + bytes }),
      );
      expect(before).toEqual(forward.slice(0, at + 1).reverse());
    }
    expect(await conversation.history.find(onDisk[1]!.id)).toEqual(forward[1]);
    expect(await conversation.history.find('no-such-event')).toBeUndefined();

    // Messages push the agent's last word out of memory; the history still has it.
    for (let count = 0; count < 8; count++) await conversation.sendMessage('m'.repeat(10_000));
    expect(conversation.agentFinalResponse()).toBe('');
    expect(await conversation.history.finalResponse()).toBe('done');
  });

  it('reopens with only the newest events in memory; the rest stays readable', async () => {
    const llm = commandsModel(Array.from({ length: 20 }, (_, step) => print(6000 + step)));
    const conversation = await LocalConversation.create({
      agent: new Agent({ llm, tools: ['TerminalTool'] }),
      workspace,
      persistenceDir,
      history: limits,
    });
    await conversation.sendMessage('Print a lot.');
    await conversation.run();
    await conversation.close();
    const onDisk = await fileEvents();

    await using reopened = await LocalConversation.open({
      agent: new Agent({ llm: commandsModel([]), tools: ['TerminalTool'] }),
      workspace,
      persistenceDir,
      history: limits,
    });
    expect(reopened.history.memoryBytes).toBeLessThanOrEqual(limits.maxMemoryBytes);
    expect(reopened.events.length).toBeLessThan(onDisk.length);
    expect(reopened.events.toArray()).toEqual(onDisk.slice(-reopened.events.length));
    const all = await collect(reopened.history.read());
    expect(all.map((entry) => entry.event)).toEqual(onDisk);

    const summary = await LocalConversation.inspect(persistenceDir);
    expect(summary).toMatchObject({
      id: conversation.id,
      executionStatus: 'finished',
      agent: null, // the test model has no JSON form
      updatedAt: onDisk.at(-1)?.timestamp,
    });
  });

  it('compacts the events file to its newest events past maxDiskBytes, while reads go on', async () => {
    const small = { maxEventBytes: 16 * 1024, maxMemoryBytes: 32 * 1024, maxDiskBytes: 96 * 1024 };
    const llm = commandsModel(Array.from({ length: 40 }, (_, step) => print(6000 + step)));
    await using conversation = await LocalConversation.create({
      agent: new Agent({ llm, tools: ['TerminalTool'] }),
      workspace,
      persistenceDir,
      history: small,
    });
    await conversation.sendMessage('Print a lot.');
    const running = conversation.run();
    // A read that began before the compactions still reads a consistent history.
    const early: StoredEvent[] = [];
    for await (const entry of conversation.history.read()) {
      early.push(entry);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await running).toBe('finished');
    for (let index = 1; index < early.length; index++) {
      expect(early[index]!.position).toBeGreaterThan(early[index - 1]!.position);
    }

    const { size } = await stat(path.join(persistenceDir, EVENTS_FILE));
    expect(size).toBeLessThanOrEqual(small.maxDiskBytes);
    const onDisk = await fileEvents();
    const all = await collect(conversation.history.read());
    expect(all.map((entry) => entry.event)).toEqual(onDisk);
    // The oldest went: the user's message is no longer kept; the last events are.
    expect(onDisk.some((event) => event.kind === 'MessageEvent')).toBe(false);
    expect(onDisk.at(-1)).toMatchObject({
      kind: 'ConversationStateUpdateEvent',
      value: 'finished',
    });
    // Cursors into what was compacted away start with the oldest event kept.
    const fromGone = await collect(conversation.history.read({ from: 0 }));
    expect(fromGone).toEqual(all);
  });

  it('cuts an oversized observation with a marker instead of keeping or dropping it', async () => {
    const llm = commandsModel([print(1024 ** 2)]);
    await using conversation = await LocalConversation.create({
      agent: new Agent({ llm, tools: ['TerminalTool'] }),
      workspace,
      persistenceDir,
      history: limits,
    });
    await conversation.sendMessage('Print a megabyte.');
    await conversation.run();
    const observation = conversation.events
      .toArray()
      .find((event): event is ObservationEventWire => event.kind === 'ObservationEvent');
    expect(Buffer.byteLength(JSON.stringify(observation)) + 1).toBeLessThanOrEqual(
      limits.maxEventBytes,
    );
    expect(observation?.observation.output).toMatch(
      /\[\.\.\. \d+ bytes cut: the event was larger than 16384 bytes \.\.\.\]/,
    );
    const onDisk = await fileEvents();
    expect(onDisk.find((event) => event.kind === 'ObservationEvent')).toEqual(observation);
  });

  it('refuses bounds out of order, naming the field', async () => {
    const agent = new Agent({ llm: commandsModel([]) });
    for (const [history, field] of [
      [{ maxEventBytes: 1000 }, 'history.maxEventBytes'],
      [{ maxEventBytes: 64 * 1024, maxMemoryBytes: 32 * 1024 }, 'history.maxMemoryBytes'],
      [{ maxMemoryBytes: 1024 ** 2, maxDiskBytes: 512 * 1024 }, 'history.maxDiskBytes'],
    ] as const) {
      await expect(LocalConversation.create({ agent, workspace, history })).rejects.toSatisfy(
        (error) =>
          WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') &&
          (error as WorkspaceError).details.field === field,
      );
    }
  });

  it('takes a given id, and refuses one that is not a UUID', async () => {
    const agent = new Agent({ llm: commandsModel([]) });
    const conversationId = crypto.randomUUID();
    await using conversation = await LocalConversation.create({
      agent,
      workspace,
      persistenceDir,
      conversationId,
    });
    expect(conversation.id).toBe(conversationId);
    expect((await LocalConversation.inspect(persistenceDir)).id).toBe(conversationId);
    await expect(
      LocalConversation.create({ agent, workspace, conversationId: 'nope' }),
    ).rejects.toSatisfy((error) => WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'));
  });

  it('skips a torn last line and removes what a dead process wrote aside', async () => {
    const agent = new Agent({ llm: commandsModel([]) });
    const conversation = await LocalConversation.create({ agent, workspace, persistenceDir });
    await conversation.sendMessage('One.');
    await conversation.close();
    const eventsPath = path.join(persistenceDir, EVENTS_FILE);
    const before = await readFile(eventsPath, 'utf8');
    await writeFile(eventsPath, `${before}{"kind":"MessageEvent","id":"torn`);
    // What a process that died while compacting leaves.
    const aside = path.join(persistenceDir, '.events.jsonl.0123456789ab.part');
    await writeFile(aside, before);
    await using reopened = await LocalConversation.open({ agent, workspace, persistenceDir });
    expect(reopened.events.toArray()).toEqual(await fileEvents());
    expect((await readFile(eventsPath, 'utf8')).startsWith(before)).toBe(true);
    expect(existsSync(aside)).toBe(false);
  });
});
