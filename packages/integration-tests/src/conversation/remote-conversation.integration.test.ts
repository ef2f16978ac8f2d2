import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import {
  Agent,
  Conversation,
  type ConversationEventListener,
  RemoteConversation,
  ScriptedLLM,
} from '@agent-workspace/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/** OpenHands event JSON (this package does not depend on protocol directly). */
type ConversationEventWire = Parameters<ConversationEventListener>[0];

const API_KEY = 'remote-conversation-test-key';

function expectCode(error: unknown, code: WorkspaceError['code']): asserts error is WorkspaceError {
  expect(WorkspaceError.isInstance(error, code), `expected ${code}, got ${error}`).toBe(true);
}

/** An agent whose model is scripted: write a file with the terminal, then finish. */
function scriptedAgent(): Agent {
  return new Agent({
    llm: new ScriptedLLM({
      script: [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hello > out.txt' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'wrote out.txt' } }] },
      ],
    }),
    tools: ['TerminalTool'],
  });
}

function userTexts(events: Iterable<ConversationEventWire>): string[] {
  const texts: string[] = [];
  for (const event of events) {
    if (event.kind !== 'MessageEvent' || event.source !== 'user') continue;
    for (const part of event.llm_message.content) if (part.type === 'text') texts.push(part.text);
  }
  return texts;
}

function expectUniqueIds(events: Iterable<ConversationEventWire>): void {
  const ids = [...events].map((event) => event.id);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('RemoteConversation against the agent-server', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [API_KEY] });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
  });

  async function conversationOnServer(): Promise<RemoteConversation> {
    const conversation = await Conversation({ agent: scriptedAgent(), workspace });
    expect(conversation).toBeInstanceOf(RemoteConversation);
    cleanups.push(() => conversation.close());
    return conversation as RemoteConversation;
  }

  it('creates, streams events, runs to finished and reads the final response', async () => {
    const conversation = await conversationOnServer();
    expect(conversation.state.executionStatus).toBe('idle');
    const streamed: ConversationEventWire[] = [];
    conversation.events.subscribe((event) => streamed.push(event));

    await conversation.sendMessage('write a file');
    // Arrives over the events socket: nothing else fetches events before run().
    await vi.waitFor(() => expect(userTexts(streamed)).toEqual(['write a file']));

    expect(await conversation.run()).toBe('finished');
    expect(conversation.state.executionStatus).toBe('finished');
    const kinds = conversation.events.toArray().map((event) => event.kind);
    expect(kinds).toContain('ActionEvent');
    expect(kinds).toContain('ObservationEvent');
    const actions = conversation.events
      .toArray()
      .filter((event) => event.kind === 'ActionEvent')
      .map((event) => event.tool_name);
    expect(actions).toEqual(['terminal', 'finish']);
    expectUniqueIds(conversation.events);
    expect(streamed.map((event) => event.id)).toEqual(
      conversation.events.toArray().map((event) => event.id),
    );
    expect(await conversation.agentFinalResponse()).toBe('wrote out.txt');
    expect(await readFile(path.join(server.dir, 'out.txt'), 'utf8')).toBe('hello\n');
  });

  it("reads a run's end from the socket's post-run snapshot, asking REST nothing after POST run", async () => {
    const conversation = await conversationOnServer();
    await conversation.sendMessage('write a file');
    const requests: string[] = [];
    const record = (request: { method?: string; url?: string }) =>
      requests.push(`${request.method} ${request.url}`);
    const httpServer = server.server.app.server;
    httpServer.on('request', record);
    try {
      expect(await conversation.run()).toBe('finished');
    } finally {
      httpServer.off('request', record);
    }
    expect(requests).toEqual([`POST /api/conversations/${conversation.id}/run`]);
    // Still every event of the run, in the server's order.
    const onServer = await fetch(
      `${server.url}/api/conversations/${conversation.id}/events/search?limit=100`,
      { headers: { 'X-Session-API-Key': API_KEY } },
    );
    const page = (await onServer.json()) as { items: ConversationEventWire[] };
    expect(conversation.events.toArray().map((event) => event.id)).toEqual(
      page.items
        .filter(
          (event) => event.kind !== 'ConversationStateUpdateEvent' || event.key !== 'full_state',
        )
        .map((event) => event.id),
    );
  });

  it('attaches by id to the same history, and close() keeps the conversation', async () => {
    const first = await conversationOnServer();
    await first.sendMessage('go');
    expect(await first.run()).toBe('finished');
    await first.close();
    expectCode(await first.sendMessage('again').catch((error) => error), 'WORKSPACE_CLOSED');

    await using attached = await RemoteConversation.attach({ workspace, conversationId: first.id });
    expect(attached.id).toBe(first.id);
    expect(attached.state.executionStatus).toBe('finished');
    expect(attached.events.toArray().map((event) => event.id)).toEqual(
      first.events.toArray().map((event) => event.id),
    );
    expect(await attached.agentFinalResponse()).toBe('wrote out.txt');
  });

  it('after a dropped socket reconnects and fills the gap, without duplicates', async () => {
    const conversation = await conversationOnServer();
    await conversation.sendMessage('before the drop');
    await vi.waitFor(() => expect(userTexts(conversation.events)).toEqual(['before the drop']));
    await using other = await RemoteConversation.attach({
      workspace,
      conversationId: conversation.id,
    });

    conversation.dropEventsConnection();
    // Sent while the first client is disconnected (it waits ≥100 ms before reconnecting).
    await other.sendMessage('during the gap');
    await vi.waitFor(() =>
      expect(userTexts(conversation.events)).toEqual(['before the drop', 'during the gap']),
    );
    // And live streaming works again after the reconnect.
    await other.sendMessage('after the reconnect');
    await vi.waitFor(() =>
      expect(userTexts(conversation.events)).toEqual([
        'before the drop',
        'during the gap',
        'after the reconnect',
      ]),
    );
    expectUniqueIds(conversation.events);
    expect(await conversation.run()).toBe('finished');
    expectUniqueIds(conversation.events);
  });

  it('creates with a given id, and a second create with it joins the same conversation', async () => {
    const conversationId = randomUUID();
    await using created = await RemoteConversation.create({
      agent: scriptedAgent(),
      workspace,
      conversationId,
    });
    expect(created.id).toBe(conversationId);
    await using again = await RemoteConversation.create({
      agent: scriptedAgent(),
      workspace,
      conversationId,
    });
    expect(again.id).toBe(conversationId);
  });

  it('pause() without a run is harmless', async () => {
    const conversation = await conversationOnServer();
    await conversation.pause();
    expect(conversation.state.executionStatus).toBe('idle');
  });

  it('close() ends a request in flight with WORKSPACE_CLOSED; a refused body is INVALID_ARGUMENT', async () => {
    const conversation = await conversationOnServer();
    const pending = conversation.agentFinalResponse().catch((error) => error);
    await conversation.close();
    expectCode(await pending, 'WORKSPACE_CLOSED');
    const refused = await RemoteConversation.create({
      agent: scriptedAgent(),
      workspace,
      conversationId: 'not a uuid',
    }).catch((error) => error);
    expectCode(refused, 'INVALID_ARGUMENT');
    expect(refused.message).toContain('conversation_id');
  });

  it('fails with typed errors: unknown id, wrong key', async () => {
    expectCode(
      await RemoteConversation.attach({ workspace, conversationId: randomUUID() }).catch(
        (error) => error,
      ),
      'NOT_FOUND',
    );
    await using wrongKey = new RemoteWorkspace({
      host: server.url,
      workingDir: server.dir,
      apiKey: 'not-the-key',
    });
    expectCode(
      await Conversation({ agent: scriptedAgent(), workspace: wrongKey }).catch((error) => error),
      'AUTHENTICATION_ERROR',
    );
  });
});
