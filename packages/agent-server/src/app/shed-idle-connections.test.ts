import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { openSocket } from '../testing/raw-http.js';
import { startTestServer } from '../testing/start-test-server.js';
import { createHttpApp, type HttpApp } from './create-http-app.js';
import { defaultMaxConnections, readOpenFilesLimit } from './default-max-connections.js';
import { shedIdleConnections } from './shed-idle-connections.js';

/** A client connection: its socket, the status of each response it read, and its close. */
interface Connection {
  socket: Socket;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  isClosed: () => boolean;
  /** Sends `head` and resolves with the status of the response (rejects if it closes first). */
  request: (head: string) => Promise<number>;
}

/** Opens a keep-alive connection to `port`. */
async function connection(port: number): Promise<Connection> {
  const socket = await openSocket(port);
  socket.on('error', () => {});
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  let received = Buffer.alloc(0);
  let waiting: { resolve: (status: number) => void; reject: (error: Error) => void } | undefined;
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const head = received.subarray(0, end).toString();
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (received.length < end + 4 + length) return;
    received = received.subarray(end + 4 + length);
    waiting.resolve(Number(head.split(' ')[1]));
    waiting = undefined;
  });
  void closed.then(() => waiting?.reject(new Error('closed without a response')));
  return {
    socket,
    closed,
    isClosed: () => isClosed,
    request: (head) =>
      new Promise<number>((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(head);
      }),
  };
}

const get = (route: string) => `GET ${route} HTTP/1.1\r\nHost: x\r\n\r\n`;

/** A connection kept alive after one `GET route` answered 200. */
async function keptAlive(port: number, route = '/ok'): Promise<Connection> {
  const kept = await connection(port);
  expect(await kept.request(get(route))).toBe(200);
  return kept;
}

describe('connection cap and idle shedding (createHttpApp)', () => {
  let app: HttpApp;
  let port: number;
  let slow: (() => void)[];

  async function start(maxConnections: number): Promise<void> {
    app = createHttpApp({
      logLevel: 'silent',
      bodyLimit: 1024,
      requestTimeoutMs: 30_000,
      maxConnections,
    });
    slow = [];
    app.get('/ok', async () => ({ ok: true }));
    app.get('/slow', () => new Promise((resolve) => slow.push(() => resolve({ slow: true }))));
    app.get('/emfile', async () => {
      throw Object.assign(new Error('EMFILE: too many open files, open'), {
        code: 'EMFILE',
        syscall: 'open',
      });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  }
  afterEach(async () => {
    for (const release of slow) release();
    await app.close();
  });

  it('past the cap, sheds the oldest idle connection and serves the new one', async () => {
    await start(3);
    const [a, b, c] = [await keptAlive(port), await keptAlive(port), await keptAlive(port)];
    const d = await keptAlive(port);
    await a.closed;
    // The others were kept: each still answers on its own connection.
    for (const kept of [b, c, d]) expect(await kept.request(get('/ok'))).toBe(200);
    expect(a.isClosed()).toBe(true);
    for (const kept of [b, c, d]) kept.socket.destroy();
  });

  it('never sheds a connection with a request in flight: with none idle, the new one is closed', async () => {
    await start(3);
    const busy = await Promise.all([connection(port), connection(port), connection(port)]);
    const answers = busy.map((kept) => kept.request(get('/slow')));
    await vi.waitFor(() => expect(slow).toHaveLength(3));
    const refused = await connection(port);
    await refused.closed;
    for (const release of slow) release();
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
    for (const kept of busy) expect(kept.isClosed()).toBe(false);
    for (const kept of busy) kept.socket.destroy();
  });

  it('sheds idle connections when a route runs out of descriptors', async () => {
    await start(100);
    const idle = await keptAlive(port);
    const failing = await connection(port);
    expect(await failing.request(get('/emfile'))).toBe(503);
    await idle.closed;
    // The one whose request failed was busy, not idle: it stays.
    expect(await failing.request(get('/ok'))).toBe(200);
    failing.socket.destroy();
  });
});

describe('shedIdleConnections', () => {
  it('closes the oldest idle connections first, never a request in flight or a websocket', async () => {
    await using t = await startTestServer();
    const port = Number(new URL(t.url).port);
    // An upload in flight: the server has its temporary file once the body streams.
    const uploading = await connection(port);
    const boundary = 'shed-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n`;
    const content = 'x'.repeat(1000);
    const tail = `\r\n--${boundary}--\r\n`;
    const uploaded = uploading.request(
      `POST /api/file/upload?path=${encodeURIComponent(path.join(t.dir, 'up.bin'))} HTTP/1.1\r\n` +
        `Host: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${head.length + content.length + tail.length}\r\n\r\n${head}${content.slice(0, 10)}`,
    );
    await vi.waitFor(() =>
      expect(readdirSync(t.dir).some((name) => name.endsWith('.part'))).toBe(true),
    );
    const socket = await TestSocketClient.open(`${t.url}/sockets/exec`);
    const older = await keptAlive(port, '/alive');
    const newer = await keptAlive(port, '/alive');

    expect(shedIdleConnections(1)).toBe(1);
    await older.closed;
    expect(await newer.request(get('/alive'))).toBe(200);
    expect(shedIdleConnections(10)).toBe(1);
    await newer.closed;

    uploading.socket.write(`${content.slice(10)}${tail}`);
    expect(await uploaded).toBe(200);
    socket.send({ type: 'start', request_id: 'r1', command: 'echo still-here', timeout: 10 });
    const exit = await socket.next((frame) => frame.type === 'exit');
    expect(exit.exit_code).toBe(0);
    socket.socket.close();
    uploading.socket.destroy();
  });
});

describe('defaultMaxConnections', () => {
  it('leaves half the descriptors past 64 to connections, from 16 to 1000', () => {
    expect(defaultMaxConnections(256)).toBe(96);
    expect(defaultMaxConnections(1024)).toBe(480);
    expect(defaultMaxConnections(70)).toBe(16);
    expect(defaultMaxConnections(1_048_576)).toBe(1000);
    expect(defaultMaxConnections(undefined)).toBe(1000);
  });

  it('reads the soft open-files limit of this process, and none where it is unlimited', async () => {
    expect(readOpenFilesLimit()).toBe(
      Number(execFileSync('bash', ['-c', 'ulimit -Sn'], { encoding: 'utf8' }).trim()),
    );
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'limits-'));
    try {
      const limits = path.join(scratch, 'limits');
      await writeFile(
        limits,
        'Limit                     Soft Limit           Hard Limit           Units     \n' +
          'Max open files            unlimited            unlimited            files     \n',
      );
      expect(readOpenFilesLimit({ limitsFile: limits })).toBeUndefined();
      expect(readOpenFilesLimit({ limitsFile: path.join(scratch, 'missing') })).toBeUndefined();
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
