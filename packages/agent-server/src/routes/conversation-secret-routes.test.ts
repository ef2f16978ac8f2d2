import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  SECRET_MASK,
  trajectoryPath,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  scriptedAgent,
  waitForStatus,
} from '../conversations/test-support/conversation-api.js';
import { createAgentServer } from '../create-agent-server.js';
import { readZip } from '../test-support/read-zip.js';

const R = AGENT_SERVER_ROUTES;
const TOKEN = 'srv_token_0123456789abcdef';
const ENCODED = [
  TOKEN,
  Buffer.from(TOKEN).toString('base64').slice(0, 24),
  Buffer.from(`${TOKEN}\n`).toString('base64'),
  Buffer.from(TOKEN).toString('hex'),
];

function expectHidden(text: string): void {
  for (const form of ENCODED) expect(text).not.toContain(form);
}

describe('conversation secret routes', () => {
  let workingDir: string;
  let stateDir: string;
  let server: Awaited<ReturnType<typeof createAgentServer>>;
  beforeAll(async () => {
    workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'secret-work-')));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'secret-state-'));
    // One loaded conversation at most: secrets must outlive unloading.
    server = await createAgentServer({
      port: 0,
      logLevel: 'silent',
      workingDir,
      stateDir,
      maxLoadedConversations: 1,
    });
  });
  afterAll(async () => {
    await server.close();
    await rm(workingDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  const start = (agent: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    api(server.url, 'POST', R.conversations, {
      workspace: { kind: 'LocalWorkspace', working_dir: workingDir },
      agent,
      ...extra,
    });
  const post = (id: string, body: unknown) =>
    api(server.url, 'POST', conversationPath(R.conversationSecrets, id), body);
  const runWithMessage = (id: string) =>
    api(server.url, 'POST', conversationPath(R.conversationEvents, id), {
      role: 'user',
      content: [{ type: 'text', text: 'go' }],
      run: true,
    });

  it('gives the secret to commands, masks it in events, files and the trajectory zip', async () => {
    const created = await start(
      scriptedAgent(
        'printf %s "$MY_TOKEN" > route-delivered.txt',
        'echo $MY_TOKEN | base64',
        'env',
      ),
    );
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const answer = await post(id, {
      secrets: { MY_TOKEN: { kind: 'StaticSecret', value: TOKEN } },
    });
    expect(answer).toMatchObject({ status: 200, json: { success: true } });
    // Another conversation pushes this one out of memory before it runs.
    const other = await start(scriptedAgent('true'));
    expect(other.status).toBe(201);
    expect((await runWithMessage(id)).status).toBe(200);
    await waitForStatus(server.url, id, 'finished');

    expect(await readFile(path.join(workingDir, 'route-delivered.txt'), 'utf8')).toBe(TOKEN);
    const events = await api(
      server.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, id)}?limit=100`,
    );
    expectHidden(events.text);
    expect(events.text).toContain(SECRET_MASK);
    expect(events.text).toContain(`MY_TOKEN=${SECRET_MASK}`);

    const dir = path.join(stateDir, 'conversations', id);
    for (const file of await readdir(dir, { recursive: true })) {
      expectHidden(await readFile(path.join(dir, file), 'utf8').catch(() => ''));
    }
    // The terminal's commands run through the bash service: its events and log hold no value.
    const bash = await api(server.url, 'GET', `${R.searchBashEvents}?limit=100`);
    expect(bash.status).toBe(200);
    expect(bash.text).toContain('BashOutput');
    expectHidden(bash.text);
    for (const file of await readdir(stateDir, { recursive: true })) {
      expectHidden(await readFile(path.join(stateDir, file), 'utf8').catch(() => ''));
    }
    const zip = await fetch(`${server.url}${trajectoryPath(id)}`);
    expect(zip.status).toBe(200);
    const entries = await readZip(Buffer.from(await zip.arrayBuffer()));
    expect(entries.size).toBeGreaterThan(0);
    for (const content of entries.values()) expectHidden(content.toString('utf8'));
  });

  it('copies the secrets into a fork, whose own updates leave the source alone', async () => {
    const created = await start(scriptedAgent('printf "%s\\n" "$MY_TOKEN" >> fork-delivered.txt'));
    const id = created.json.id as string;
    await post(id, { secrets: { MY_TOKEN: TOKEN } });
    const forked = await api(server.url, 'POST', conversationPath(R.forkConversation, id), {});
    expect(forked.status).toBe(201);
    const forkId = forked.json.id as string;
    const replaced = `${TOKEN}_fork`;
    expect((await post(forkId, { secrets: { MY_TOKEN: replaced } })).status).toBe(200);
    expect((await runWithMessage(forkId)).status).toBe(200);
    await waitForStatus(server.url, forkId, 'finished');
    expect((await runWithMessage(id)).status).toBe(200);
    await waitForStatus(server.url, id, 'finished');
    const delivered = await readFile(path.join(workingDir, 'fork-delivered.txt'), 'utf8');
    expect(delivered).toBe(`${replaced}\n${TOKEN}\n`);
    // The fork masks what the source knew as well as its own value.
    const events = await api(
      server.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, forkId)}?limit=100`,
    );
    expectHidden(events.text);
    expect(events.text).not.toContain(replaced);
  });

  it('takes secrets in the start request (plain strings, {value})', async () => {
    const created = await start(
      scriptedAgent('printf "%s|%s" "$START_A" "$START_B" > start-delivered.txt'),
      {
        secrets: { START_A: 'start-value-aaaa', START_B: { value: 'start-value-bbbb' } },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'go' }], run: true },
      },
    );
    expect(created.status).toBe(201);
    await waitForStatus(server.url, created.json.id, 'finished');
    expect(await readFile(path.join(workingDir, 'start-delivered.txt'), 'utf8')).toBe(
      'start-value-aaaa|start-value-bbbb',
    );
  });

  it('refuses a bad start request secret with 422, creating nothing and echoing no value', async () => {
    const before = (await api(server.url, 'GET', R.countConversations)).json;
    const refused = await start(scriptedAgent('true'), {
      secrets: { PATH: 'start-path-value-xyz' },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.detail[0].loc).toEqual(['body', 'secrets', 'PATH']);
    expect(refused.text).not.toContain('start-path-value-xyz');
    // A schema failure elsewhere in the body echoes it with the secrets masked.
    const schema = await api(server.url, 'POST', R.conversations, {
      agent: scriptedAgent('true'),
      secrets: { GOOD: 'echoed-value-never' },
    });
    expect(schema.status).toBe(422);
    expect(schema.text).not.toContain('echoed-value-never');
    expect((await api(server.url, 'GET', R.countConversations)).json).toBe(before);
  });

  it('answers 404 for an unknown conversation and 422 for a bad body, never echoing values', async () => {
    const unknown = await post('5b3b1f9e-6d8f-4a51-9f0e-0d6a8c1e2f3a', {
      secrets: { A_TOKEN: 'some-value-1234' },
    });
    expect(unknown.status).toBe(404);
    const id = (await start(scriptedAgent('true'))).json.id as string;
    const cases: [unknown, (string | number)[]][] = [
      [{ secrets: { LD_PRELOAD: 'bad-value-echo-1' } }, ['body', 'secrets', 'LD_PRELOAD']],
      [
        { secrets: { GOOD: { kind: 'Nope', value: 'bad-value-echo-2' } } },
        ['body', 'secrets', 'GOOD'],
      ],
      [{ secrets: 'bad-value-echo-3' }, ['body', 'secrets']],
      [{}, ['body', 'secrets']],
    ];
    for (const [body, loc] of cases) {
      const answer = await post(id, body);
      expect(answer.status).toBe(422);
      expect(answer.json.detail[0].loc.slice(0, loc.length)).toEqual(loc);
      expect(answer.text).not.toContain('bad-value-echo');
    }
    const badId = await post('not-a-uuid', { secrets: {} });
    expect(badId.status).toBe(422);
  });

  it('answers malformed JSON holding a secret with 422 json_invalid that quotes none of it', async () => {
    const id = (await start(scriptedAgent('true'))).json.id as string;
    // An unquoted value: V8's parse error would quote the text around it.
    for (const [route, text] of [
      [conversationPath(R.conversationSecrets, id), '{"secrets":{"A_TOKEN":zq7-unquoted-secret}}'],
      [R.conversations, '{"secrets":{"A_TOKEN":zq7-unquoted-secret}}'],
    ] as const) {
      const response = await fetch(`${server.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      const answer = await response.text();
      expect(response.status).toBe(422);
      expect(JSON.parse(answer).detail[0].type).toBe('json_invalid');
      expect(answer).not.toContain('zq7');
      expect(answer).not.toContain('unquoted');
    }
  });
});
