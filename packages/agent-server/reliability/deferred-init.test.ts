import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  INIT_API_KEY_HEADER,
  MAX_INIT_SESSION_API_KEY_LENGTH,
  MAX_INIT_SESSION_API_KEYS,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call } from './support/http.js';
import { AUTH, createScratch, KEY, type Scratch, ServerProcess } from './support/server-process.js';
import { WsClient } from './support/websocket.js';

const R = AGENT_SERVER_ROUTES;
const INIT_AUTH = { [INIT_API_KEY_HEADER]: KEY };
const JSON_TYPE = { 'content-type': 'application/json' };
const UNKNOWN_CONVERSATION_ID = '00000000-0000-4000-8000-000000000000';
const EVENTS_SOCKET = conversationPath(R.conversationEventsSocket, UNKNOWN_CONVERSATION_ID);

/** A hostile `POST /api/init` and the answer its contract names. */
interface InitCase {
  name: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  /** A 422 must carry an issue whose `loc` starts with this. */
  loc?: (string | number)[];
}

const INIT_CASES: InitCase[] = [
  {
    name: 'no init key, 2 MiB body',
    body: Buffer.alloc(2 * 1024 ** 2, 'a'),
    headers: {},
    status: 401,
  },
  { name: 'session key instead of init key', body: '{}', headers: { ...AUTH }, status: 401 },
  {
    name: 'body over the 1 MiB limit',
    body: `{"session_api_keys":["${'k'.repeat(2 * 1024 ** 2)}"]}`,
    status: 413,
  },
  { name: 'not JSON', body: '{"session_api_keys": [', status: 422 },
  { name: 'an array', body: '[]', status: 422, loc: ['body'] },
  {
    name: 'keys not a list',
    body: '{"session_api_keys":"k"}',
    status: 422,
    loc: ['body', 'session_api_keys'],
  },
  {
    name: 'an empty key list (would open the server)',
    body: '{"session_api_keys":[]}',
    status: 422,
    loc: ['body', 'session_api_keys'],
  },
  {
    name: 'an empty key',
    body: '{"session_api_keys":[""]}',
    status: 422,
    loc: ['body', 'session_api_keys', 0],
  },
  {
    name: 'a key over the length limit',
    body: JSON.stringify({ session_api_keys: ['k'.repeat(MAX_INIT_SESSION_API_KEY_LENGTH + 1)] }),
    status: 422,
    loc: ['body', 'session_api_keys', 0],
  },
  {
    name: 'more keys than the limit',
    body: JSON.stringify({
      session_api_keys: Array.from({ length: MAX_INIT_SESSION_API_KEYS + 1 }, (_, i) => `k${i}`),
    }),
    status: 422,
    loc: ['body', 'session_api_keys'],
  },
  {
    name: 'a field we cannot apply',
    body: '{"env":{"GITHUB_TOKEN":"x"}}',
    status: 422,
    loc: ['body'],
  },
  { name: '__proto__ smuggling', body: '{"__proto__":{"session_api_keys":["evil"]}}', status: 422 },
];

describe('deferred init under attack', () => {
  let scratch: Scratch;
  let server: ServerProcess;

  const init = (body: string | Buffer, headers: Record<string, string> = INIT_AUTH) =>
    call(`${server.url}${R.init}`, {
      method: 'POST',
      headers: { ...JSON_TYPE, ...headers },
      body,
    });
  const state = async () =>
    ((await call(`${server.url}${R.init}`)).json as { state: string }).state;

  beforeAll(async () => {
    scratch = await createScratch('deferred-init');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: ['--defer-init'],
    });
  });

  afterAll(async () => {
    await server?.stop();
    await scratch?.remove();
  });

  it('answers 503 on every gated route and socket while dormant; open routes stay open', async () => {
    for (const route of [R.alive, R.health, R.ready, R.serverInfo, R.init]) {
      expect((await call(`${server.url}${route}`)).status, route).toBe(200);
    }
    for (const route of [R.tools, R.countConversations, R.searchBashEvents, R.gitChanges]) {
      const answer = await call(`${server.url}${route}`, { headers: AUTH });
      expect(answer.status, route).toBe(503);
      expect(answer.json).toEqual({
        detail: 'Internal Server Error',
        exception: "503: server is in deferred-init state 'dormant'; call POST /api/init first",
      });
    }
    for (const path of [R.bashEventsSocket, EVENTS_SOCKET]) {
      await expect(WsClient.connect(server.url, path)).rejects.toThrow('upgrade refused with 503');
    }
  });

  it.each(INIT_CASES)('refuses $name with $status and stays dormant', async (hostile) => {
    const answer: Answer = await init(hostile.body, hostile.headers);
    expect(answer.status).toBe(hostile.status);
    if (hostile.loc) {
      const issues = (answer.json as { detail: { loc: unknown[] }[] }).detail;
      expect(issues.some((issue) => hostile.loc!.every((part, i) => issue.loc[i] === part))).toBe(
        true,
      );
    }
    expect(await state()).toBe('dormant');
    expect((await call(`${server.url}${R.alive}`)).status).toBe(200);
  });

  it('lets exactly one of 20 racing inits win; only its keys are accepted afterwards', async () => {
    const keys = Array.from({ length: 20 }, (_, index) => `racer-${index}-${crypto.randomUUID()}`);
    const answers = await Promise.all(
      keys.map((key) => init(JSON.stringify({ session_api_keys: [key] }))),
    );
    const winners = answers.flatMap((answer, index) => (answer.status === 200 ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.json).toEqual({ state: 'ready', error: null });
      else
        expect(answer).toMatchObject({
          status: 400,
          json: { detail: 'server already in state: ready' },
        });
    }
    const winner = keys[winners[0]!]!;
    const tools = await call(`${server.url}${R.tools}`, {
      headers: { 'x-session-api-key': winner },
    });
    expect(tools.status).toBe(200);
    expect(tools.json).toContain('TerminalTool');
    for (const key of [KEY, keys[(winners[0]! + 1) % keys.length]!]) {
      const refused = await call(`${server.url}${R.tools}`, {
        headers: { 'x-session-api-key': key },
      });
      expect(refused.status).toBe(401);
    }

    // A later init, even with the start-up key and a valid body, changes nothing.
    const again = await init(JSON.stringify({ session_api_keys: ['late'] }));
    expect(again).toMatchObject({
      status: 400,
      json: { detail: 'server already in state: ready' },
    });
    const stillWinner = await call(`${server.url}${R.countConversations}`, {
      headers: { 'x-session-api-key': winner },
    });
    expect(stillWinner).toMatchObject({ status: 200, json: 0 });
    const late = await call(`${server.url}${R.countConversations}`, {
      headers: { 'x-session-api-key': 'late' },
    });
    expect(late.status).toBe(401);
  });

  it('refuses a bad resend_mode or after_timestamp on the events socket with 422 at the handshake', async () => {
    for (const query of [
      'resend_mode=since&after_timestamp=not-a-time',
      `resend_mode=since&after_timestamp=${'9'.repeat(64 * 1024)}`,
      'resend_mode=since&after_timestamp=2026-01-01T00:00:00%00',
      'resend_mode=since&after_timestamp=2026-13-01T00:00:00Z',
      'resend_mode=since&after_timestamp=2026-01-01T00:00:00%2B24:00',
      'resend_mode=ALL',
      'resend_mode=since&resend_mode=all',
    ]) {
      await expect(
        WsClient.connect(server.url, `${EVENTS_SOCKET}?${query}`, false),
        query.slice(0, 80),
      ).rejects.toThrow(/upgrade refused with 4(22|14|31)/);
    }
    expect((await call(`${server.url}${R.alive}`)).status).toBe(200);
  });
});
