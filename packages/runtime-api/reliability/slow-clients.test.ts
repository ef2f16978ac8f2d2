import type { Socket } from 'node:net';
import { openSocket, type RawExchange, readExchange } from '@agent-workspace/agent-server/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../src/server/test-support/runtime-api-call.js';
import { remoteApiTestContext } from '../src/test-support/remote-api-test-context.js';
import { rawJson } from './support/raw-json.js';
import { RuntimeApiProcess } from './support/runtime-api-process.js';

/** `--request-timeout-seconds` of the server under test. */
const REQUEST_TIMEOUT_SECONDS = 2;
/** `--max-connections` of the server under test. */
const MAX_CONNECTIONS = 40;
/**
 * Upper bound for "answered at all" after the deadline: the server enforces deadlines once a
 * second; the rest is slack for a loaded machine.
 */
const BOUND_MS = REQUEST_TIMEOUT_SECONDS * 1000 + 3000;

const context = remoteApiTestContext();

context.describe('runtime-api against slow and greedy clients', () => {
  let server: RuntimeApiProcess;

  beforeAll(async () => {
    server = await RuntimeApiProcess.start({
      image: context.image,
      namespace: context.namespace,
      flags: [
        '--request-timeout-seconds',
        String(REQUEST_TIMEOUT_SECONDS),
        '--max-connections',
        String(MAX_CONNECTIONS),
      ],
    });
  });

  afterAll(async () => {
    await server?.stop();
    await context.cleanup();
  });

  /** Sends `head`, then `body` one byte every `intervalMs`; reads the answer. */
  async function trickle(head: string, body: string, intervalMs: number): Promise<RawExchange> {
    const socket = await openSocket(server.port);
    const exchange = readExchange(socket, { timeoutMs: BOUND_MS + 10_000, waitForClose: true });
    socket.write(head);
    const timer = setInterval(() => {
      if (body === '' || socket.destroyed) return clearInterval(timer);
      socket.write(body[0]!);
      body = body.slice(1);
    }, intervalMs);
    const result = await exchange;
    clearInterval(timer);
    return result;
  }

  function startHead(length: number, auth = true): string {
    return [
      'POST /start HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      ...(auth ? [`X-API-Key: ${server.apiKey}`] : []),
      '',
      '',
    ].join('\r\n');
  }

  async function assertServing(): Promise<void> {
    expect((await call(server.url, '/health')).status).toBe(200);
    expect((await call(server.url, '/sessions', { apiKey: server.apiKey })).status).toBe(200);
    expect(server.exit).toBeUndefined();
  }

  it('answers a trickled (slow-loris) body with 408 within the deadline and closes', async () => {
    const exchange = await trickle(startHead(1000), '{"image":"x"'.padEnd(1000, ' '), 250);
    expect(exchange.response?.status).toBe(408);
    expect(rawJson(exchange.response)).toEqual({ detail: 'Request timed out' });
    expect(exchange.closed).toBe(true);
    expect(exchange.elapsedMs).toBeLessThan(BOUND_MS);
    await assertServing();
  });

  it('answers a stalled body and trickled headers with 408 within the deadline', async () => {
    const stalled = await trickle(startHead(100), '', 1000);
    const headers = await trickle('', startHead(10), 100);
    for (const exchange of [stalled, headers]) {
      expect(exchange.response?.status).toBe(408);
      expect(exchange.closed).toBe(true);
      expect(exchange.elapsedMs).toBeLessThan(BOUND_MS);
    }
    await assertServing();
  });

  it('answers a body without the key with 401 at once and still bounds its connection', async () => {
    const exchange = await trickle(startHead(1000, false), 'x'.repeat(1000), 250);
    expect(exchange.response?.status).toBe(401);
    expect(exchange.elapsedMs).toBeLessThan(1000);
    expect(exchange.closed).toBe(true);
    await assertServing();
  });

  it(`holds ${MAX_CONNECTIONS} slow clients at once, refuses more, and serves once they go`, async () => {
    const sockets: Socket[] = [];
    const exchanges: Promise<RawExchange>[] = [];
    for (let index = 0; index < MAX_CONNECTIONS + 20; index++) {
      const socket = await openSocket(server.port);
      sockets.push(socket);
      exchanges.push(readExchange(socket, { timeoutMs: BOUND_MS + 10_000, waitForClose: true }));
      socket.write(startHead(100));
    }
    const results = await Promise.all(exchanges);
    const statuses = results.map((result) => result.response?.status ?? 'closed');
    // The ones past the limit are closed at once; the others time out with 408.
    expect(statuses.filter((status) => status === 408).length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(statuses.filter((status) => status === 'closed').length).toBeGreaterThanOrEqual(20);
    expect(statuses.every((status) => status === 408 || status === 'closed')).toBe(true);
    expect(results.every((result) => result.closed)).toBe(true);
    await assertServing();
  });

  it('never logged a key', () => {
    expect(server.output).not.toContain(server.apiKey);
    expect(server.output).not.toContain(server.secret);
  });
});
