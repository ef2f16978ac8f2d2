import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { portProxyPath } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { Figures } from './support/figures.js';
import { call } from './support/http.js';
import { AUTH, createScratch, type Scratch, ServerProcess } from './support/server-process.js';

const MIB = 1024 ** 2;
/** Bytes streamed through the proxy each way; the server's RSS must not follow them. */
const STREAMED_BYTES = 256 * MIB;
/** Requests and websockets through the proxy at once. */
const CONCURRENT = 200;

describe('port proxy under hostile input and load', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let upstream: Server;
  let port: number;
  const hostile = new Figures('port proxy: hostile ports and paths');
  const load = new Figures('port proxy: streamed bodies and concurrent clients');

  beforeAll(async () => {
    scratch = await createScratch('port-proxy');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
    });
    // The "dev server": counts an upload, streams a download of ?bytes=, echoes websockets.
    upstream = createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (request.method === 'POST') {
        let received = 0;
        for await (const chunk of request) received += (chunk as Buffer).length;
        response.end(String(received));
        return;
      }
      const total = Number(url.searchParams.get('bytes') ?? 0);
      const chunk = Buffer.alloc(MIB, 7);
      let sent = 0;
      Readable.from(
        (function* () {
          while (sent < total) {
            const piece = chunk.subarray(0, Math.min(MIB, total - sent));
            sent += piece.length;
            yield piece;
          }
        })(),
      ).pipe(response);
    });
    new WebSocketServer({ server: upstream }).on('connection', (socket) => {
      socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    port = (upstream.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const figures of [hostile, load]) {
      figures.observeRss(server?.peakRss ?? 0);
      figures.save();
    }
    upstream?.closeAllConnections();
    upstream?.close();
    await server?.stop();
    await scratch?.remove();
  });

  it('refuses bad and own ports with a 4xx naming them, and paths that leave the prefix', async () => {
    const own = Number(new URL(server.url).port);
    /** [path, expected status] */
    const cases: [string, number][] = [
      ['/api/workspace/ports/0/', 422],
      ['/api/workspace/ports/65536/', 422],
      ['/api/workspace/ports/-1/', 422],
      ['/api/workspace/ports/1e3/', 422],
      ['/api/workspace/ports/0x50/', 422],
      [`/api/workspace/ports/${'9'.repeat(400)}/`, 414],
      [`/api/workspace/ports/${own}/server_info`, 403],
      [`/api/workspace/ports/${port}/../../server_info`, 404],
      [`/api/workspace/ports/${port}/%2e%2e/%2e%2e/server_info`, 404],
    ];
    for (const [path, expected] of cases) {
      hostile.tried++;
      const answer = await call(`${server.url}${path}`, { headers: AUTH });
      if (answer.status === expected) hostile.rejected += expected >= 400 ? 1 : 0;
      else hostile.escapes++;
      expect(answer.status, path).toBe(expected);
    }
    // Without the key nothing is proxied.
    hostile.tried++;
    const unauthenticated = await call(`${server.url}${portProxyPath(port, '/')}`);
    expect(unauthenticated.status).toBe(401);
    hostile.rejected++;
    expect(hostile.escapes).toBe(0);
  });

  it(`streams ${STREAMED_BYTES / MIB} MiB each way without holding them`, async () => {
    // The proxy's forwarder (reply-from, its HTTP client) loads on the first proxied request:
    // loaded before the measurement, which starts a new peak from the resident set then.
    const warmUp = await call(`${server.url}${portProxyPath(port, '/download?bytes=1024')}`, {
      headers: AUTH,
    });
    expect(warmUp.status).toBe(200);
    server.resetPeakRss();
    const before = server.peakRss;
    const upload = await fetch(`${server.url}${portProxyPath(port, '/upload')}`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/octet-stream' },
      body: Readable.toWeb(
        Readable.from(
          (function* () {
            const chunk = Buffer.alloc(MIB, 1);
            for (let sent = 0; sent < STREAMED_BYTES; sent += MIB) yield chunk;
          })(),
        ),
      ) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(await upload.text()).toBe(String(STREAMED_BYTES));
    const download = await fetch(
      `${server.url}${portProxyPath(port, `/download?bytes=${STREAMED_BYTES}`)}`,
      { headers: AUTH },
    );
    let received = 0;
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.length;
    }
    expect(received).toBe(STREAMED_BYTES);
    const growth = server.peakRss - before;
    load.note = `${STREAMED_BYTES / MIB} MiB each way: +${Math.round(growth / MIB)} MiB RSS`;
    expect(growth, `RSS grew by ${Math.round(growth / MIB)} MiB`).toBeLessThan(100 * MIB);
  });

  it(`serves ${CONCURRENT} requests and ${CONCURRENT / 4} websockets at once, and stays up`, async () => {
    const requests = Array.from({ length: CONCURRENT }, (_, index) =>
      call(`${server.url}${portProxyPath(port, `/download?bytes=${1024 + index}`)}`, {
        headers: AUTH,
        timeoutMs: 60_000,
      }),
    );
    const sockets = Array.from({ length: CONCURRENT / 4 }, async (_, index) => {
      const socket = new WebSocket(
        `${server.url.replace('http', 'ws')}${portProxyPath(port, '/ws')}`,
        { headers: AUTH },
      );
      await once(socket, 'open');
      socket.send(`frame ${index}`);
      const [echo] = (await once(socket, 'message')) as [Buffer];
      socket.close();
      return echo.toString();
    });
    const answers = await Promise.all(requests);
    load.tried += answers.length + sockets.length;
    answers.forEach((answer, index) => {
      expect(answer.status).toBe(200);
      expect(answer.text.length).toBe(1024 + index);
    });
    expect(await Promise.all(sockets)).toEqual(sockets.map((_, index) => `frame ${index}`));
    expect((await call(`${server.url}/health`)).status).toBe(200);
  });
});
