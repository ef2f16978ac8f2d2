import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import { AUTH_TIMEOUT_MS } from './authenticate-socket.js';
import { MAX_BASH_EVENT_SUBSCRIBERS } from './bash-events-socket.js';

const HEX_ID = expect.stringMatching(/^[0-9a-f]{32}$/);
const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
const KEY = 'socket-secret';

type Frame = Record<string, unknown>;

async function execute(base: string, command: string, key?: string): Promise<Frame> {
  const response = await fetch(`${base}/api/bash/execute_bash_command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-session-api-key': key } : {}) },
    body: JSON.stringify({ command }),
  });
  return (await response.json()) as Frame;
}

/** Frames of one command up to and including its exit. */
async function untilExit(client: TestSocketClient, commandId: string): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await client.next((f) => f.command_id === commandId);
    frames.push(frame);
    if (frame.exit_code !== null) return frames;
  }
}

describe('/sockets/bash-events without keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('starts a command from an ExecuteBashRequest frame and pushes its events, nulls included', async () => {
    const client = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
    try {
      client.send({ command: 'echo hello; echo oops >&2', timeout: 5 });
      const command = await client.next((f) => f.kind === 'BashCommand');
      expect(command).toEqual({
        kind: 'BashCommand',
        id: HEX_ID,
        timestamp: TIMESTAMP,
        command: 'echo hello; echo oops >&2',
        cwd: null,
        timeout: 5,
      });
      const outputs = await untilExit(client, command.id as string);
      expect(outputs.at(-1)).toEqual({
        kind: 'BashOutput',
        id: HEX_ID,
        timestamp: TIMESTAMP,
        command_id: command.id,
        order: outputs.length - 1,
        exit_code: 0,
        stdout: null,
        stderr: null,
      });
      expect(outputs.map((f) => f.stdout ?? '').join('')).toBe('hello\n');
      expect(outputs.map((f) => f.stderr ?? '').join('')).toBe('oops\n');
    } finally {
      await client.close();
    }
  });

  it('pushes events of commands started over HTTP, live only unless history is requested', async () => {
    const earlier = await execute(server.url, 'echo earlier');
    const live = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
    const replay = await TestSocketClient.open(`${server.url}/sockets/bash-events?resend_mode=all`);
    const legacy = await TestSocketClient.open(`${server.url}/sockets/bash-events?resend_all=true`);
    try {
      const later = await execute(server.url, 'echo later');
      await untilExit(live, later.command_id as string);
      expect(live.frames.some((f) => f.command_id === earlier.command_id)).toBe(false);
      for (const client of [replay, legacy]) {
        const history = await untilExit(client, earlier.command_id as string);
        expect(history.map((f) => f.stdout ?? '').join('')).toBe('earlier\n');
        await untilExit(client, later.command_id as string);
        // History comes first, in time order, without duplicates.
        const ids = client.frames.map((f) => f.id);
        expect(new Set(ids).size).toBe(ids.length);
        const stamps = client.frames.map((f) => f.timestamp as string);
        expect([...stamps].sort()).toEqual(stamps);
      }
    } finally {
      await Promise.all([live.close(), replay.close(), legacy.close()]);
    }
  });

  it('answers bad frames with BashError and stays open', async () => {
    const client = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
    try {
      client.send('{not json');
      expect(await client.next((f) => f.kind === 'BashError')).toEqual({
        kind: 'BashError',
        id: HEX_ID,
        timestamp: TIMESTAMP,
        code: 'JSONDecodeError',
        detail: expect.stringContaining('not valid JSON'),
      });
      // The parser's reason would quote the frame around an unquoted value (it may be a secret).
      client.send('{"command":zq7-unquoted-secret}');
      const quoted = await client.next((f) => f.kind === 'BashError');
      expect(quoted).toMatchObject({ code: 'JSONDecodeError' });
      expect(quoted.detail).not.toContain('zq7');
      client.send({ command: '', timeout: -1 });
      const invalid = await client.next((f) => f.kind === 'BashError');
      expect(invalid).toMatchObject({ code: 'ValidationError' });
      expect(invalid.detail).toContain('command: String should have at least 1 character');
      expect(invalid.detail).toContain('timeout: Input should be greater than 0');
      client.send({ command: 'true', cwd: `${server.dir}/missing` });
      expect(await client.next((f) => f.kind === 'BashError')).toMatchObject({
        code: 'FileNotFoundError',
        detail: `cwd does not exist: ${server.dir}/missing`,
      });
      client.send({ type: 'auth', session_api_key: 'ignored' });
      client.send({ command: 'echo still-open' });
      const command = await client.next((f) => f.kind === 'BashCommand');
      expect(command.command).toBe('echo still-open');
      expect(client.frames.filter((f) => f.kind === 'BashError')).toHaveLength(4);
    } finally {
      await client.close();
    }
  });

  it(`closes subscriber ${MAX_BASH_EVENT_SUBSCRIBERS + 1} with 1013`, async () => {
    const clients = await Promise.all(
      Array.from({ length: MAX_BASH_EVENT_SUBSCRIBERS }, () =>
        TestSocketClient.open(`${server.url}/sockets/bash-events`),
      ),
    );
    try {
      const extra = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
      expect(await extra.closed).toEqual({ code: 1013, reason: 'Too many connections' });
      await clients[0]?.close();
      // A freed slot can be taken again.
      const again = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
      const result = await execute(server.url, 'echo slot');
      await untilExit(again, result.command_id as string);
      await again.close();
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

describe('/sockets/bash-events with a slow subscriber', () => {
  it('closes a subscriber with 1013 once events it had not received were evicted', async () => {
    const server = await startTestServer({ bashEventMaxBytes: 1024 * 1024 });
    const slow = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
    try {
      // The slow client stops reading; 48 MiB of output overflows every buffer and the store.
      slow.socket.pause();
      const result = await execute(server.url, "head -c 50331648 /dev/zero | tr '\\0' z");
      expect(result.exit_code).toBe(0);
      slow.socket.resume();
      expect(await slow.closed).toEqual({
        code: 1013,
        reason: 'Too slow: events were dropped before sending',
      });
      // The server is still serving.
      const after = await execute(server.url, 'echo still here');
      expect(after.stdout).toBe('still here\n');
    } finally {
      await server.close();
    }
  });
});

describe('/sockets/bash-events authentication', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [KEY] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('accepts a first {"type":"auth"} frame with a valid key', async () => {
    const client = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
    try {
      client.send({ type: 'auth', session_api_key: KEY });
      client.send({ command: 'echo authed' });
      const command = await client.next((f) => f.kind === 'BashCommand');
      const outputs = await untilExit(client, command.id as string);
      expect(outputs.map((f) => f.stdout ?? '').join('')).toBe('authed\n');
    } finally {
      await client.close();
    }
  });

  it.each([
    ['a wrong key', { type: 'auth', session_api_key: 'wrong' }],
    ['a frame that is not auth', { command: 'echo sneaky' }],
    ['invalid JSON', '{"type":"auth"'],
  ])('closes with 4001 on %s', async (_name, frame) => {
    const client = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
    client.send(frame);
    expect(await client.closed).toEqual({ code: 4001, reason: 'Authentication failed' });
    expect(client.frames).toEqual([]);
  });

  it(
    'closes with 4001 when no auth frame arrives in time',
    async () => {
      const client = await TestSocketClient.open(`${server.url}/sockets/bash-events`);
      expect(await client.closed).toEqual({ code: 4001, reason: 'Authentication failed' });
    },
    AUTH_TIMEOUT_MS + 10_000,
  );

  it('accepts the deprecated query parameter and header, and refuses wrong ones at the handshake', async () => {
    const byQuery = await TestSocketClient.open(
      `${server.url}/sockets/bash-events?session_api_key=${KEY}&resend_mode=all`,
    );
    const byHeader = await TestSocketClient.open(`${server.url}/sockets/bash-events`, {
      'X-Session-API-Key': KEY,
    });
    try {
      const result = await execute(server.url, 'echo deprecated', KEY);
      for (const client of [byQuery, byHeader]) {
        const outputs = await untilExit(client, result.command_id as string);
        expect(outputs.map((f) => f.stdout ?? '').join('')).toBe('deprecated\n');
      }
    } finally {
      await Promise.all([byQuery.close(), byHeader.close()]);
    }
    await expect(
      TestSocketClient.open(`${server.url}/sockets/bash-events?session_api_key=wrong`),
    ).rejects.toThrow('HTTP 403');
    await expect(
      TestSocketClient.open(`${server.url}/sockets/bash-events`, { 'X-Session-API-Key': 'wrong' }),
    ).rejects.toThrow('HTTP 403');
  });

  it('rejects a malformed query with 422 at the handshake', async () => {
    await expect(
      TestSocketClient.open(`${server.url}/sockets/bash-events?resend_all=maybe`),
    ).rejects.toThrow('HTTP 422');
  });
});
