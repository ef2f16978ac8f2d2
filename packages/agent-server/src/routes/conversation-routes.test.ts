import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  SOCKET_CLOSE_CODES,
} from '@agent-workspace/protocol';
import { describe, expect, it, vi } from 'vitest';
import {
  jsonApi as api,
  useTestServer,
  waitForStatus,
} from '../conversations/test-support/conversation-api.js';
import { createAgentServer } from '../create-agent-server.js';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer } from '../testing/start-test-server.js';

const R = AGENT_SERVER_ROUTES;

/** A ScriptedLLM config: one terminal command, then finish. */
function scriptedAgent(command = 'echo hello', apiKey?: string): Record<string, unknown> {
  return {
    kind: 'Agent',
    llm: {
      kind: 'ScriptedLLM',
      script: [
        { tool_calls: [{ name: 'terminal', arguments: { command } }] },
        { tool_calls: [{ name: 'finish', arguments: { message: 'all done' } }] },
      ],
      ...(apiKey ? { api_key: apiKey } : {}),
    },
    tools: [{ name: 'TerminalTool' }],
  };
}

describe('conversation routes', () => {
  const t = useTestServer();

  const create = (body: Record<string, unknown>) => api(t.url, 'POST', R.conversations, body);

  it('creates, runs to the end, and serves events and the final response', async () => {
    const created = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: scriptedAgent(),
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(created.json).toMatchObject({
      execution_status: 'idle',
      workspace: { working_dir: t.dir },
      max_iterations: 500,
      stuck_detection: true,
      tags: {},
    });
    const send = await api(t.url, 'POST', conversationPath(R.conversationEvents, id), {
      role: 'user',
      content: [{ type: 'text', text: 'say hello' }],
      run: true,
    });
    expect(send).toEqual({ status: 200, json: { success: true } });
    await waitForStatus(t.url, id, 'finished');

    const final = await api(t.url, 'GET', conversationPath(R.agentFinalResponse, id));
    expect(final.json).toEqual({ response: 'all done' });

    const all = await api(t.url, 'GET', conversationPath(R.searchConversationEvents, id));
    const kinds = all.json.items.map((event: { kind: string }) => event.kind);
    expect(kinds).toContain('MessageEvent');
    expect(kinds).toContain('ObservationEvent');
    const observation = all.json.items.find((e: { kind: string }) => e.kind === 'ObservationEvent');
    expect(JSON.stringify(observation)).toContain('hello');

    const messages = await api(
      t.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, id)}?kind=openhands.sdk.event.llm_convertible.message.MessageEvent&source=user`,
    );
    expect(messages.json.items).toHaveLength(1);
    const count = await api(
      t.url,
      'GET',
      `${conversationPath(R.countConversationEvents, id)}?source=user`,
    );
    expect(count.json).toBe(1);

    const paged = await api(
      t.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, id)}?limit=2`,
    );
    expect(paged.json.items).toHaveLength(2);
    const next = await api(
      t.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, id)}?limit=2&page_id=${paged.json.next_page_id}`,
    );
    expect(next.json.items[0].id).toBe(all.json.items[2].id);

    const one = await api(
      t.url,
      'GET',
      conversationPath(R.conversationEvent, id, all.json.items[0].id),
    );
    expect(one.json).toEqual(all.json.items[0]);
    expect(
      (await api(t.url, 'GET', conversationPath(R.conversationEvent, id, 'nope'))).status,
    ).toBe(404);
  });

  it('accepts the TypeScript client workspace form, initial_message and a fixed id (200 when it exists)', async () => {
    const conversationId = crypto.randomUUID();
    const body = {
      workspace: { type: 'local', working_dir: '.' },
      agent: scriptedAgent(),
      conversation_id: conversationId,
      initial_message: { role: 'user', content: [{ type: 'text', text: 'go' }], run: true },
      max_iterations: 10,
      confirmation_policy: { kind: 'NeverConfirm' },
    };
    const first = await create(body);
    expect(first.status).toBe(201);
    expect(first.json.id).toBe(conversationId);
    expect(first.json.max_iterations).toBe(10);
    await waitForStatus(t.url, conversationId, 'finished');
    const again = await create(body);
    expect(again.status).toBe(200);
    expect(again.json.execution_status).toBe('finished');

    const batch = await api(
      t.url,
      'GET',
      `${R.conversations}?ids=${conversationId}&ids=${crypto.randomUUID()}`,
    );
    expect(batch.json).toHaveLength(2);
    expect(batch.json[0].id).toBe(conversationId);
    expect(batch.json[1]).toBeNull();

    const search = await api(t.url, 'GET', `${R.searchConversations}?status=finished&limit=100`);
    expect(search.json.items.map((info: { id: string }) => info.id)).toContain(conversationId);
    const count = await api(t.url, 'GET', `${R.countConversations}?status=finished`);
    expect(count.json).toBeGreaterThanOrEqual(1);

    const patched = await api(t.url, 'PATCH', conversationPath(R.conversation, conversationId), {
      title: 'renamed',
    });
    expect(patched.json).toEqual({ success: true });
    const info = await api(t.url, 'GET', conversationPath(R.conversation, conversationId));
    expect(info.json.title).toBe('renamed');
    // The batch answer has the stats' totals only; the conversation's own, its per-call records.
    type Metrics = { token_usages: unknown[]; accumulated_token_usage: unknown };
    const totals = Object.entries(batch.json[0].stats.usage_to_metrics as Record<string, Metrics>);
    expect(totals.length).toBeGreaterThan(0);
    for (const [usageId, metrics] of totals) {
      const full = (info.json.stats.usage_to_metrics as Record<string, Metrics>)[usageId]!;
      expect(metrics.token_usages).toEqual([]);
      expect(full.token_usages.length).toBeGreaterThan(0);
      expect(metrics.accumulated_token_usage).toEqual(full.accumulated_token_usage);
    }

    const deleted = await api(t.url, 'DELETE', conversationPath(R.conversation, conversationId));
    expect(deleted.json).toEqual({ success: true });
    expect((await api(t.url, 'GET', conversationPath(R.conversation, conversationId))).status).toBe(
      404,
    );
  });

  it('never echoes an API key', async () => {
    const created = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: scriptedAgent('true', 'sk-secret-key'),
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.json)).not.toContain('sk-secret-key');
  });

  it('answers 409 to a second run, and interrupt stops the first', async () => {
    const created = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: scriptedAgent('sleep 30'),
    });
    const id = created.json.id as string;
    await api(t.url, 'POST', conversationPath(R.conversationEvents, id), {
      role: 'user',
      content: [{ type: 'text', text: 'wait' }],
    });
    expect((await api(t.url, 'POST', conversationPath(R.runConversation, id))).status).toBe(200);
    const second = await api(t.url, 'POST', conversationPath(R.runConversation, id));
    expect(second).toEqual({
      status: 409,
      json: { detail: 'Conversation already running. Wait for completion or pause first.' },
    });
    expect((await api(t.url, 'POST', conversationPath(R.interruptConversation, id))).json).toEqual({
      success: true,
    });
    await waitForStatus(t.url, id, 'paused');
    expect((await api(t.url, 'POST', conversationPath(R.runConversation, id))).status).toBe(200);
    await waitForStatus(t.url, id, 'finished');
  });

  it('answers 404, 400, 422 and success:false as OpenHands does', async () => {
    const unknown = crypto.randomUUID();
    expect((await api(t.url, 'GET', conversationPath(R.conversation, unknown))).status).toBe(404);
    expect((await api(t.url, 'POST', conversationPath(R.runConversation, unknown))).status).toBe(
      404,
    );
    expect((await api(t.url, 'GET', conversationPath(R.agentFinalResponse, unknown))).status).toBe(
      404,
    );
    const send = await api(t.url, 'POST', conversationPath(R.conversationEvents, unknown), {
      role: 'user',
      content: [],
    });
    expect(send.status).toBe(404);
    expect((await api(t.url, 'DELETE', conversationPath(R.conversation, unknown))).status).toBe(
      400,
    );
    expect((await api(t.url, 'POST', conversationPath(R.pauseConversation, unknown))).status).toBe(
      400,
    );
    expect(
      (await api(t.url, 'PATCH', conversationPath(R.conversation, unknown), { title: 'x' })).json,
    ).toEqual({ success: false });

    const noWorkspace = await create({ agent: scriptedAgent() });
    expect(noWorkspace.status).toBe(422);
    expect(JSON.stringify(noWorkspace.json)).toContain('workspace');
    const badIterations = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: scriptedAgent(),
      max_iterations: 0,
    });
    expect(badIterations.status).toBe(422);
    expect(JSON.stringify(badIterations.json)).toContain('max_iterations');
    const badTool = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: { llm: { kind: 'ScriptedLLM', script: [] }, tools: [{ name: 'NoSuchTool' }] },
    });
    expect(badTool.status).toBeGreaterThanOrEqual(400);
    expect(badTool.status).toBeLessThan(500);
    const missingDir = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: path.join(t.dir, 'missing') },
      agent: scriptedAgent(),
    });
    expect(missingDir.status).toBe(400);
    const badLimit = await api(t.url, 'GET', `${R.searchConversations}?limit=101`);
    expect(badLimit.status).toBe(422);
    expect(JSON.stringify(badLimit.json)).toContain('limit');
    expect((await api(t.url, 'GET', conversationPath(R.conversation, 'not-a-uuid'))).status).toBe(
      422,
    );
  });

  it('streams a full_state snapshot, the history and live events on the events socket', async () => {
    const created = await create({
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: scriptedAgent(),
      initial_message: { role: 'user', content: [{ type: 'text', text: 'first' }] },
    });
    const id = created.json.id as string;
    const wsUrl = `${t.url.replace('http', 'ws')}${conversationPath(R.conversationEventsSocket, id)}?resend_mode=all`;
    const client = await TestSocketClient.open(wsUrl);
    const snapshot = await client.next();
    expect(snapshot).toMatchObject({
      kind: 'ConversationStateUpdateEvent',
      key: 'full_state',
      value: { id, execution_status: 'idle' },
    });
    const replayed = await client.next();
    expect(replayed).toMatchObject({ kind: 'MessageEvent', source: 'user' });
    client.send({ role: 'user', content: [{ type: 'text', text: 'from the socket' }] });
    await client.next((frame) => JSON.stringify(frame).includes('from the socket'));
    await client.next((frame) => frame.key === 'execution_status' && frame.value === 'finished');
    await client.next(
      (frame) =>
        frame.key === 'full_state' &&
        (frame.value as { execution_status?: string }).execution_status === 'finished',
    );
    client.send({ nonsense: true, role: 'robot' });
    await client.next((frame) => frame.kind === 'ServerErrorEvent');
    await client.close();

    const missing = await TestSocketClient.open(
      `${t.url.replace('http', 'ws')}${conversationPath(R.conversationEventsSocket, crypto.randomUUID())}`,
    );
    const closed = await missing.closed;
    expect(closed.code).toBe(SOCKET_CLOSE_CODES.conversationNotFound);
  });
});

describe('conversations on a confined server', () => {
  it('refuses a working_dir outside the working directory with 403', async () => {
    await using confined = await startTestServer({ confineToWorkingDir: true });
    const outside = await api(confined.url, 'POST', R.conversations, {
      workspace: { kind: 'LocalWorkspace', working_dir: os.tmpdir() },
      agent: scriptedAgent(),
    });
    expect(outside.status).toBe(403);
    const inside = await api(confined.url, 'POST', R.conversations, {
      workspace: { kind: 'LocalWorkspace', working_dir: confined.dir },
      agent: scriptedAgent(),
    });
    expect(inside.status).toBe(201);
  });
});

describe('conversation persistence', () => {
  it('reloads conversations after a restart: history intact, a stopped run resumable', async () => {
    const workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'conv-work-')));
    const stateDir = await mkdtemp(path.join(os.tmpdir(), 'conv-state-'));
    try {
      const options = { port: 0, logLevel: 'silent' as const, workingDir, stateDir };
      const first = await createAgentServer(options);
      const created = await api(first.url, 'POST', R.conversations, {
        workspace: { kind: 'LocalWorkspace', working_dir: workingDir },
        agent: scriptedAgent('sleep 30', 'sk-never-on-disk'),
        initial_message: { role: 'user', content: [{ type: 'text', text: 'go' }], run: true },
      });
      const id = created.json.id as string;
      await vi.waitFor(
        async () => {
          const events = await api(
            first.url,
            'GET',
            conversationPath(R.searchConversationEvents, id),
          );
          expect(events.json.items.some((e: { kind: string }) => e.kind === 'ActionEvent')).toBe(
            true,
          );
        },
        { timeout: 10_000, interval: 50 },
      );
      await first.close();

      const files = await readdir(path.join(stateDir, 'conversations', id), { recursive: true });
      for (const file of files) {
        const text = await readFile(path.join(stateDir, 'conversations', id, file), 'utf8').catch(
          () => '',
        );
        expect(text).not.toContain('sk-never-on-disk');
      }

      const second = await createAgentServer(options);
      try {
        const info = await api(second.url, 'GET', conversationPath(R.conversation, id));
        expect(info.json.execution_status).toBe('paused');
        const events = await api(
          second.url,
          'GET',
          conversationPath(R.searchConversationEvents, id),
        );
        expect(events.json.items[0]).toMatchObject({ kind: 'MessageEvent', source: 'user' });
        expect(
          (await api(second.url, 'POST', conversationPath(R.runConversation, id))).status,
        ).toBe(200);
        await waitForStatus(second.url, id, 'finished');
        const final = await api(second.url, 'GET', conversationPath(R.agentFinalResponse, id));
        expect(final.json).toEqual({ response: 'all done' });
      } finally {
        await second.close();
      }
    } finally {
      await rm(workingDir, { recursive: true, force: true });
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
