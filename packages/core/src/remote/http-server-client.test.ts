import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { HttpServerClient } from './http-server-client.js';
import type { HttpServerClientOptions } from './http-server-types.js';
import { REST_REFUSAL_CODES } from './http-status-error.js';

const KEY = 'server-key-0123456789';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A real HTTP server on loopback whose answer each test sets. */
let handler: Handler;
const seen: IncomingMessage[] = [];
const server: Server = createServer((request, response) => {
  seen.push(request);
  request.resume();
  request.on('end', () => handler(request, response));
});
let origin = '';

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

function clientOf(options: Partial<HttpServerClientOptions> = {}): HttpServerClient {
  return new HttpServerClient({
    origin,
    basePath: '/prefix',
    peer: 'the test server',
    key: { header: 'X-Test-Key', value: KEY, name: 'test key', option: 'testKey' },
    requestTimeoutMs: 5_000,
    connectTimeoutMs: 5_000,
    maxConnections: 2,
    ...options,
  });
}

const answerSchema = z.object({ name: z.string() });

/** What `promise` rejects with, checked to be a `WorkspaceError`. */
async function failure(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await rejectionOf(promise);
  if (!WorkspaceError.isInstance(error)) throw new Error(`expected a WorkspaceError, got ${error}`);
  return error;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
});

describe('HttpServerClient', () => {
  it('sends the key below the path prefix and parses JSON with a zod schema', async () => {
    const client = clientOf();
    handler = answer(200, { name: 'ok' });
    const reply = await client.json(
      { method: 'GET', path: '/thing', query: { a: 'b c' } },
      answerSchema,
    );
    expect(reply).toEqual({ name: 'ok' });
    expect(seen[0]?.url).toBe('/prefix/thing?a=b+c');
    expect(seen[0]?.headers['x-test-key']).toBe(KEY);
    await client.close();
    await client.close();
  });

  it('reads statuses the server way, then its own codes, naming the server', async () => {
    const plain = clientOf();
    const rest = clientOf({ statusCodes: REST_REFUSAL_CODES });
    const request = { method: 'POST', path: '/thing' } as const;
    handler = answer(404, { detail: 'no thing' });
    expect(await failure(plain.json(request, answerSchema))).toMatchObject({
      code: 'PROTOCOL_ERROR',
    });
    const missing = await failure(rest.json(request, answerSchema));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', details: { status: 404 } });
    expect(missing.message).toContain('the test server at');
    expect(missing.message).toContain('no thing');
    handler = answer(422, {
      detail: [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required' }],
    });
    const invalid = await failure(rest.json(request, answerSchema));
    expect(invalid.code).toBe('INVALID_ARGUMENT');
    expect(invalid.message).toContain('body.name: Field required');
    handler = answer(401, { detail: 'Unauthorized' });
    const auth = await failure(plain.json(request, answerSchema));
    expect(auth.code).toBe('AUTHENTICATION_ERROR');
    expect(auth.message).toContain('rejected the test key');
    expect(auth.message).toContain('check testKey');
    await Promise.all([plain.close(), rest.close()]);
  });

  it('reads a 503 with Retry-After as busy, with the delay', async () => {
    const client = clientOf();
    handler = answer(503, { detail: 'full' }, { 'retry-after': '3' });
    const busy = await failure(client.json({ method: 'GET', path: '/x' }, answerSchema));
    expect(busy.code).toBe('RESOURCE_EXHAUSTED');
    expect(busy.details.retryAfterMs).toBe(3_000);
    expect(busy.message).toContain('retry in 3 s');
    handler = answer(503, { detail: 'upstream down' });
    expect((await failure(client.json({ method: 'GET', path: '/x' }, answerSchema))).code).toBe(
      'SERVER_ERROR',
    );
    await client.close();
  });

  it('redacts an echoed key, and turns a bad body into PROTOCOL_ERROR', async () => {
    const client = clientOf();
    handler = answer(500, { detail: `failed with ${KEY}` });
    const failed = await failure(client.json({ method: 'GET', path: '/x' }, answerSchema));
    expect(failed.code).toBe('SERVER_ERROR');
    expect(failed.details.detail).toBe('failed with [test key]');
    expect(failed.message).not.toContain(KEY);
    handler = answer(200, '<html>proxy</html>');
    const html = await failure(client.json({ method: 'GET', path: '/x' }, answerSchema));
    expect(html.code).toBe('PROTOCOL_ERROR');
    expect(html.message).toContain('not JSON');
    handler = answer(200, { name: 7 });
    const shape = await failure(client.json({ method: 'GET', path: '/x' }, answerSchema));
    expect(shape.code).toBe('PROTOCOL_ERROR');
    expect(shape.message).toContain('name:');
    await client.close();
  });

  it('ends with the signal: its WorkspaceError reason, or ABORTED', async () => {
    const client = clientOf();
    handler = () => {};
    const controller = new AbortController();
    const pending = client.call({ method: 'GET', path: '/hang', signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await failure(pending)).code).toBe('ABORTED');
    server.closeAllConnections();
    await client.close();
  });

  it('names the server and the reason when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = clientOf({ origin: `http://127.0.0.1:${port}` });
    const error = await failure(client.call({ method: 'GET', path: '/x' }));
    expect(error.code).toBe('CONNECTION_ERROR');
    expect(error.message).toContain(
      `cannot reach the test server at http://127.0.0.1:${port}/prefix`,
    );
    expect(error.message).toContain('connection refused');
    await client.close();
  });
});
