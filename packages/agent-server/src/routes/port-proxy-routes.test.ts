import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PORT_PROXY_CAPABILITY, portProxyPath } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const KEY = 'port-proxy-key-0123456789abcdef';
const AUTH = { 'X-Session-API-Key': KEY };

describe('the port proxy, /api/workspace/ports/<port>/<path>', () => {
  let t: TestServer;
  let app: Server;
  let port: number;
  beforeAll(async () => {
    t = await startTestServer({ sessionApiKeys: [KEY] });
    // A "dev server" the agent started: echoes what it received, and websocket frames.
    app = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    new WebSocketServer({ server: app }).on('connection', (socket, request) => {
      socket.send(`hello ${request.url}`);
      socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
    });
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    port = (app.address() as AddressInfo).port;
  });
  afterAll(async () => {
    app?.closeAllConnections();
    app?.close();
    await t?.close();
  });

  const proxied = (path: string, init: RequestInit = {}) =>
    fetch(`${t.url}${portProxyPath(port, path)}`, {
      ...init,
      headers: { ...AUTH, ...(init.headers as Record<string, string>) },
    });

  it('passes a request with its method, path, query, headers and body, but not the session key', async () => {
    const response = await proxied('/api/items?page=2', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: 'Bearer app-token' },
      body: 'payload',
    });
    expect(response.status).toBe(200);
    const echoed = (await response.json()) as {
      method: string;
      url: string;
      headers: Record<string, string>;
      body: string;
    };
    expect(echoed).toMatchObject({ method: 'POST', url: '/api/items?page=2', body: 'payload' });
    expect(echoed.headers.authorization).toBe('Bearer app-token');
    expect(echoed.headers.host).toBe(`127.0.0.1:${port}`);
    expect(JSON.stringify(echoed.headers)).not.toContain(KEY);
    expect((await (await proxied('')).json()) as { url: string }).toMatchObject({ url: '/' });
  });

  it('joins a websocket, frame for frame, text and binary', async () => {
    const url = `${t.url.replace('http', 'ws')}${portProxyPath(port, '/live?room=1')}`;
    const socket = new WebSocket(url, { headers: AUTH });
    const received: string[] = [];
    socket.on('message', (data) => received.push(data.toString()));
    await once(socket, 'open');
    socket.send('ping');
    socket.send(Buffer.from([1, 2, 3]));
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(3);
    expect(received[0]).toBe('hello /live?room=1');
    expect(received[1]).toBe('ping');
    expect([...Buffer.from(received[2] as string, 'binary')]).toHaveLength(3);
    socket.close();
    await once(socket, 'close');
  });

  it('asks for the key, names a bad port, refuses its own, and says when nothing answers', async () => {
    expect((await fetch(`${t.url}${portProxyPath(port, '/')}`)).status).toBe(401);
    for (const bad of ['0', '65536', 'abc', '-1', '123456']) {
      const response = await fetch(`${t.url}/api/workspace/ports/${bad}/`, { headers: AUTH });
      expect(response.status, bad).toBe(422);
      expect(await response.text()).toContain('port');
    }
    const own = Number(new URL(t.url).port);
    expect(
      (await fetch(`${t.url}${portProxyPath(own, '/health')}`, { headers: AUTH })).status,
    ).toBe(403);
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const freePort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const nothing = await fetch(`${t.url}${portProxyPath(freePort, '/')}`, { headers: AUTH });
    expect(nothing.status).toBe(502);
    expect(await nothing.text()).toContain(`port ${freePort}`);
    const info = (await (await fetch(`${t.url}/server_info`, { headers: AUTH })).json()) as {
      capabilities: string[];
    };
    expect(info.capabilities).toContain(PORT_PROXY_CAPABILITY);
  });
});
