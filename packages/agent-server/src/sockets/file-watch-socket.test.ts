import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FILE_WATCH_CAPABILITY } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const KEY = 'watch-secret';

/** The watch URL of `server` for `query` (`path=...&recursive=...`). */
const watchUrl = (server: TestServer, query: Record<string, string>): string =>
  `${server.url}/sockets/watch?${new URLSearchParams(query)}`;

describe('/sockets/watch', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [KEY], confineToWorkingDir: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A watch socket past its auth frame and `ready`. */
  const openWatch = async (query: Record<string, string>): Promise<TestSocketClient> => {
    const client = await TestSocketClient.open(watchUrl(server, query));
    client.send({ type: 'auth', session_api_key: KEY });
    await client.next((frame) => frame.type === 'ready');
    return client;
  };

  it('is announced in /server_info', async () => {
    const info = (await (await fetch(`${server.url}/server_info`)).json()) as {
      capabilities: string[];
    };
    expect(info.capabilities).toContain(FILE_WATCH_CAPABILITY);
  });

  it('sends a frame for a file the agent writes, paths relative to the watched directory', async () => {
    await mkdir(path.join(server.dir, 'w1/sub'), { recursive: true });
    const client = await openWatch({ path: 'w1', recursive: 'true' });
    try {
      const response = await fetch(`${server.url}/api/bash/execute_bash_command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-api-key': KEY },
        body: JSON.stringify({ command: 'mkdir -p w1/sub/new && echo hi > w1/sub/new/f.txt' }),
      });
      expect(response.status).toBe(200);
      expect(
        await client.next((frame) => frame.path === 'sub/new/f.txt' && frame.type === 'create'),
      ).toEqual({ type: 'create', path: 'sub/new/f.txt', is_directory: false });
    } finally {
      await client.close();
    }
  });

  it('refuses paths it cannot watch with one error frame naming the field, then closes', async () => {
    await symlink('/etc', path.join(server.dir, 'link-out'));
    await writeFile(path.join(server.dir, 'plain-file'), '');
    for (const [input, code] of [
      ['missing', 'NOT_FOUND'],
      ['..', 'FORBIDDEN'],
      ['/etc', 'FORBIDDEN'],
      ['link-out', 'FORBIDDEN'],
      ['plain-file', 'INVALID_ARGUMENT'],
    ] as const) {
      const client = await TestSocketClient.open(watchUrl(server, { path: input }));
      client.send({ type: 'auth', session_api_key: KEY });
      expect(await client.next()).toMatchObject({ type: 'error', code, field: 'path' });
      expect((await client.closed).code).toBe(1000);
    }
  });

  it('refuses a bad query before the handshake', async () => {
    for (const query of [
      {},
      { path: '' },
      { path: 'a', max_queued_events: '0' },
      { path: 'a', recursive: 'x' },
    ]) {
      await expect(
        TestSocketClient.open(watchUrl(server, query as Record<string, string>)),
      ).rejects.toThrow(/HTTP 4\d\d/);
    }
  });

  it('closes with 4001 without a valid auth frame', async () => {
    const client = await TestSocketClient.open(watchUrl(server, { path: '.' }));
    client.send({ type: 'auth', session_api_key: 'wrong' });
    expect((await client.closed).code).toBe(4001);
  });
});
