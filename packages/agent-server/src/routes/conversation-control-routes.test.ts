import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { conversationPath, AGENT_SERVER_ROUTES as R } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  api,
  scriptedAgent,
  startRequest,
  waitForStatus,
} from '../conversations/test-support/conversation-api.js';
import { createAgentServer } from '../create-agent-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

/** An agent that runs `commands` then finishes, with `condenser`. */
const withCondenser = (condenser: Record<string, unknown>, ...commands: string[]) => ({
  ...scriptedAgent(...commands),
  condenser,
});
const rolling = { kind: 'RollingWindowCondenser', max_size: 100, keep_first: 1 };

describe('conversation control routes', () => {
  let t: TestServer;
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'control-routes-state-'));
    t = await startTestServer({ stateDir });
  });
  afterAll(async () => {
    await t.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  async function finishedConversation(agent: Record<string, unknown>): Promise<string> {
    const created = await api(t.url, 'POST', R.conversations, startRequest(t.dir, agent));
    expect(created.status).toBe(201);
    await waitForStatus(t.url, created.json.id, 'finished');
    return created.json.id;
  }
  const events = async (id: string): Promise<{ id: string; kind: string }[]> =>
    (await api(t.url, 'GET', `${conversationPath(R.searchConversationEvents, id)}?limit=100`)).json
      .items;

  it('condenses on request and records the Condensation event', async () => {
    const id = await finishedConversation(withCondenser(rolling, 'echo a', 'echo b', 'echo c'));
    const answer = await api(t.url, 'POST', conversationPath(R.condenseConversation, id));
    expect(answer).toMatchObject({ status: 200, json: { success: true } });
    const kinds = (await events(id)).map((event) => event.kind);
    expect(kinds.slice(-2)).toEqual(['CondensationRequest', 'Condensation']);
    const condensation = (await events(id)).at(-1) as unknown as { forgotten_event_ids: string[] };
    expect(condensation.forgotten_event_ids.length).toBeGreaterThan(0);
  });

  it('answers 409 to condense without a condenser, 404 for an unknown conversation', async () => {
    const id = await finishedConversation(scriptedAgent('echo a'));
    const refused = await api(t.url, 'POST', conversationPath(R.condenseConversation, id));
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toMatch(/no condenser/);
    const unknown = crypto.randomUUID();
    expect(
      (await api(t.url, 'POST', conversationPath(R.condenseConversation, unknown))).status,
    ).toBe(404);
  });

  it('refuses an agent whose condenser kind is unknown with 422 naming the field', async () => {
    const answer = await api(
      t.url,
      'POST',
      R.conversations,
      startRequest(t.dir, withCondenser({ kind: 'MagicCondenser' })),
    );
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.json)).toContain('condenser');
  });

  it('forks up to an event into an independent conversation with its own directory', async () => {
    const id = await finishedConversation(scriptedAgent('echo one'));
    await api(t.url, 'PATCH', conversationPath(R.conversation, id), { title: 'Source' });
    const source = await events(id);
    const observation = source.find((event) => event.kind === 'ObservationEvent')!;
    const forkId = crypto.randomUUID();
    const forked = await api(t.url, 'POST', conversationPath(R.forkConversation, id), {
      id: forkId,
      title: 'Branch',
      tags: { team: 'x' },
      from_event_id: observation.id,
    });
    expect(forked.status).toBe(201);
    expect(forked.json).toMatchObject({
      id: forkId,
      title: 'Branch',
      tags: { team: 'x' },
      execution_status: 'idle',
      forked_from_conversation_id: id,
      forked_from_event_id: observation.id,
    });
    const copied = await events(forkId);
    const upTo = source.findIndex((event) => event.id === observation.id);
    expect(copied.map((event) => event.id)).toEqual(source.slice(0, upTo + 1).map((e) => e.id));
    expect(await readdir(path.join(stateDir, 'conversations'))).toContain(forkId);
    // The fork runs on its own; the source does not change.
    await api(t.url, 'POST', conversationPath(R.conversationEvents, forkId), {
      role: 'user',
      content: [{ type: 'text', text: 'fork only' }],
      run: true,
    });
    await waitForStatus(t.url, forkId, 'finished');
    expect((await events(id)).length).toBe(source.length);
    const info = await api(t.url, 'GET', conversationPath(R.conversation, id));
    expect(info.json).toMatchObject({ title: 'Source', forked_from_conversation_id: null });

    // Without a body: all events, a new id.
    const whole = await api(t.url, 'POST', conversationPath(R.forkConversation, id));
    expect(whole.status).toBe(201);
    expect((await events(whole.json.id)).length).toBe(source.length);
  });

  it('answers fork with 409 for a taken id, 404 for unknown ids and events, 422 for a bad body', async () => {
    const id = await finishedConversation(scriptedAgent('echo one'));
    const fork = (source: string, body: unknown) =>
      api(t.url, 'POST', conversationPath(R.forkConversation, source), body);
    expect((await fork(id, { id })).status).toBe(409);
    expect((await fork(crypto.randomUUID(), {})).status).toBe(404);
    const unknownEvent = await fork(id, { from_event_id: 'no-such-event' });
    expect(unknownEvent.status).toBe(404);
    expect(unknownEvent.json.detail).toMatch(/from_event_id/);
    expect((await fork(id, { title: 'x'.repeat(201) })).status).toBe(422);
    expect((await fork(id, { id: 'not-a-uuid' })).status).toBe(422);
  });

  it('interrupts a run mid-tool: status paused with an InterruptEvent; pause waits for the step', async () => {
    const created = await api(
      t.url,
      'POST',
      R.conversations,
      startRequest(t.dir, scriptedAgent('sleep 30')),
    );
    const id = created.json.id;
    await waitForStatus(t.url, id, 'running');
    await vi.waitFor(async () =>
      expect((await events(id)).some((event) => event.kind === 'ActionEvent')).toBe(true),
    );
    const answer = await api(t.url, 'POST', conversationPath(R.interruptConversation, id));
    expect(answer).toMatchObject({ status: 200, json: { success: true } });
    const info = await api(t.url, 'GET', conversationPath(R.conversation, id));
    expect(info.json.execution_status).toBe('paused');
    const kinds = (await events(id)).map((event) => event.kind);
    expect(kinds).toContain('InterruptEvent');
    expect(kinds).not.toContain('PauseEvent');
    // Idle: harmless; unknown: 400 as OpenHands.
    expect((await api(t.url, 'POST', conversationPath(R.interruptConversation, id))).status).toBe(
      200,
    );
    expect(
      (await api(t.url, 'POST', conversationPath(R.interruptConversation, crypto.randomUUID())))
        .status,
    ).toBe(400);
  });

  it('pause lets the tool in flight finish, then the status becomes paused', async () => {
    const created = await api(
      t.url,
      'POST',
      R.conversations,
      startRequest(t.dir, scriptedAgent('sleep 1 && echo slept')),
    );
    const id = created.json.id;
    await vi.waitFor(async () =>
      expect((await events(id)).some((event) => event.kind === 'ActionEvent')).toBe(true),
    );
    expect((await api(t.url, 'POST', conversationPath(R.pauseConversation, id))).status).toBe(200);
    await waitForStatus(t.url, id, 'paused');
    const kinds = (await events(id)).map((event) => event.kind);
    expect(kinds).toContain('ObservationEvent');
    expect(kinds).toContain('PauseEvent');
    expect(kinds).not.toContain('InterruptEvent');
  });

  it('keeps a fork and a title across a restart', async () => {
    const id = await finishedConversation(scriptedAgent('echo one'));
    const forked = await api(t.url, 'POST', conversationPath(R.forkConversation, id), {
      title: 'Kept',
    });
    const second = await createAgentServer({
      port: 0,
      logLevel: 'silent',
      workingDir: t.dir,
      stateDir,
    });
    try {
      const info = await api(second.url, 'GET', conversationPath(R.conversation, forked.json.id));
      expect(info.json).toMatchObject({ title: 'Kept', forked_from_conversation_id: id });
    } finally {
      await second.close();
    }
  });
});
