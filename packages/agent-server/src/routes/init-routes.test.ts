import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  deferredInitDetail,
  INIT_API_KEY_HEADER,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol';
import { TOOL_NAMES } from '@agent-workspace/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const R = AGENT_SERVER_ROUTES;
const START_KEY = 'pool-key';
const USER_KEY = 'user-key';

async function call(
  server: TestServer,
  route: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

const DORMANT_BODY = {
  detail: 'Internal Server Error',
  exception: `503: ${deferredInitDetail('dormant')}`,
};

describe('deferred init', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers 503 on the api, actions and sockets until POST /api/init, then serves the new key', async () => {
    server = await startTestServer({ deferInit: true, sessionApiKeys: [START_KEY] });
    const start = { [SESSION_API_KEY_HEADER]: START_KEY };
    expect((await call(server, R.alive)).status).toBe(200);
    expect((await call(server, R.ready)).status).toBe(200);
    expect(await call(server, R.init)).toEqual({
      status: 200,
      json: { state: 'dormant', error: null },
    });
    // The key is still checked first: a stranger learns nothing of the state.
    expect((await call(server, R.countConversations)).status).toBe(401);
    for (const route of [R.countConversations, R.searchBashEvents, R.tools, R.gitChanges]) {
      expect(await call(server, route, { headers: start })).toEqual({
        status: 503,
        json: DORMANT_BODY,
      });
    }
    expect(
      (await call(server, R.executeAction, { method: 'POST', headers: start, body: {} })).status,
    ).toBe(503);
    await expect(
      TestSocketClient.open(`${server.url}${R.bashEventsSocket}`, start),
    ).rejects.toThrow('HTTP 503');

    // Init needs a start-up key in X-Init-API-Key; the session header does not do.
    const body = { session_api_keys: [USER_KEY] };
    expect((await call(server, R.init, { method: 'POST', body })).status).toBe(401);
    expect((await call(server, R.init, { method: 'POST', headers: start, body })).status).toBe(401);
    const init = { [INIT_API_KEY_HEADER]: START_KEY };
    expect(await call(server, R.init, { method: 'POST', headers: init, body })).toEqual({
      status: 200,
      json: { state: 'ready', error: null },
    });
    expect((await call(server, R.init)).json).toEqual({ state: 'ready', error: null });

    expect((await call(server, R.tools, { headers: start })).status).toBe(401);
    expect(
      await call(server, R.tools, { headers: { [SESSION_API_KEY_HEADER]: USER_KEY } }),
    ).toEqual({
      status: 200,
      json: [...TOOL_NAMES],
    });
    // Sockets take the delivered key: an unknown conversation is told (4004) only past auth.
    const unknown = `${server.url}${conversationPath(R.conversationEventsSocket, crypto.randomUUID())}`;
    for (const [key, code] of [
      [START_KEY, 4001],
      [USER_KEY, 4004],
    ] as const) {
      const socket = await TestSocketClient.open(unknown);
      socket.send({ type: 'auth', session_api_key: key });
      expect((await socket.closed).code).toBe(code);
    }

    // Only once.
    expect(await call(server, R.init, { method: 'POST', headers: init, body })).toEqual({
      status: 400,
      json: { detail: 'server already in state: ready' },
    });
  });

  it('rejects fields it cannot apply and malformed keys with 422 naming the field, staying dormant', async () => {
    server = await startTestServer({ deferInit: true });
    const bad = await call(server, R.init, {
      method: 'POST',
      body: { conversations_path: '/tmp/elsewhere' },
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json)).toContain('conversations_path');
    const tooMany = await call(server, R.init, {
      method: 'POST',
      body: { session_api_keys: Array.from({ length: 17 }, (_, index) => `key-${index}`) },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.detail[0].loc).toEqual(['body', 'session_api_keys']);
    const malformed = await call(server, R.init, { method: 'POST', body: '{"session_api' });
    expect(malformed.status).toBe(422);
    expect((await call(server, R.init)).json.state).toBe('dormant');
    // An empty body keeps the start-up keys (none: open) and wakes the server.
    expect((await call(server, R.init, { method: 'POST', body: {} })).json.state).toBe('ready');
    expect((await call(server, R.countConversations)).json).toBe(0);
  });

  it('is 404 on a server started without deferInit, which serves the tool names at once', async () => {
    server = await startTestServer();
    const detail =
      'server is not running with deferred_init=True; the /api/init endpoint is not available';
    expect(await call(server, R.init)).toEqual({ status: 404, json: { detail } });
    expect(await call(server, R.init, { method: 'POST', body: {} })).toEqual({
      status: 404,
      json: { detail },
    });
    expect(await call(server, R.tools)).toEqual({ status: 200, json: [...TOOL_NAMES] });
  });
});
