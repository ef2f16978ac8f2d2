import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RuntimeApiClient } from './runtime-api-client.js';
import { HttpPeerDouble } from './test-support/http-peer-double.js';

const API_KEY = 'runtime-key-0123456789abcdef';
const SESSION_KEY = 'session-key-fedcba9876543210';

const session = {
  runtime_id: 'a'.repeat(32),
  session_id: 'agent-server-1',
  url: 'http://127.0.0.1:40001',
  session_api_key: SESSION_KEY,
  status: 'running',
  pod_status: 'ready',
};

/** Expects `promise` to reject with a WorkspaceError and returns it. */
async function rejection(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!WorkspaceError.isInstance(error)) throw new Error(`expected a WorkspaceError, got ${error}`);
  return error;
}

/** Everything an error shows: message, details and the messages of its causes. */
function everythingOf(error: WorkspaceError): string {
  const causes: string[] = [];
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    causes.push(cause.message);
  }
  return [error.message, JSON.stringify(error.details), inspect(error), ...causes].join('\n');
}

describe('RuntimeApiClient', () => {
  let peer: HttpPeerDouble;
  let client: RuntimeApiClient;

  beforeAll(async () => {
    peer = await HttpPeerDouble.start(() => ({ status: 200, json: session }));
    client = new RuntimeApiClient({ url: `${peer.url}/runtime/`, apiKey: API_KEY });
  });
  afterAll(async () => {
    await client.close();
    await peer.close();
  });
  beforeEach(() => {
    peer.requests.length = 0;
    peer.handler = () => ({ status: 200, json: session });
  });

  it('sends the key as X-API-Key only, below the URL path prefix', async () => {
    await client.getSession('agent-server-1');
    await client.start({ image: 'img', session_id: 'agent-server-1' });
    await client.pause(session.runtime_id);
    await client.resume(session.runtime_id);
    peer.handler = () => ({
      status: 200,
      json: { runtime_id: session.runtime_id, status: 'stopped' },
    });
    await client.stop(session.runtime_id);
    peer.handler = () => ({
      status: 200,
      json: { sessions: [{ ...session, session_api_key: undefined }] },
    });
    await client.listSessions();
    expect(peer.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /runtime/sessions/agent-server-1',
      'POST /runtime/start',
      'POST /runtime/pause',
      'POST /runtime/resume',
      'POST /runtime/stop',
      'GET /runtime/sessions',
    ]);
    for (const request of peer.requests) {
      expect(request.headers['x-api-key']).toBe(API_KEY);
      expect(request.headers['x-session-api-key']).toBeUndefined();
    }
    expect(JSON.parse(peer.requests[2]!.body)).toEqual({ runtime_id: session.runtime_id });
  });

  it('parses a session, keeping its session key out of enumeration', async () => {
    const read = await client.getSession('agent-server-1');
    expect(read).toMatchObject({
      runtimeId: session.runtime_id,
      sessionId: 'agent-server-1',
      url: session.url,
      status: 'running',
      podStatus: 'ready',
    });
    expect(read?.sessionApiKey).toBe(SESSION_KEY);
    expect(JSON.stringify(read)).not.toContain(SESSION_KEY);
    expect(inspect(read)).not.toContain(SESSION_KEY);
    expect(JSON.stringify(client)).not.toContain(API_KEY);
    expect(inspect(client, { depth: 5 })).not.toContain(API_KEY);
  });

  it('accepts `id` for `runtime_id`, as OpenHands servers send it', async () => {
    const { runtime_id, ...rest } = session;
    peer.handler = () => ({ status: 201, json: { ...rest, id: runtime_id } });
    expect((await client.start({ image: 'img', session_id: 'x' })).runtimeId).toBe(runtime_id);
  });

  it('answers undefined for an unknown session, and NOT_FOUND for an unknown runtime', async () => {
    peer.handler = () => ({ status: 404, json: { detail: 'no session agent-server-9' } });
    expect(await client.getSession('agent-server-9')).toBeUndefined();
    const error = await rejection(client.pause('f'.repeat(32)));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('Runtime API');
    expect(error.message).toContain('no session agent-server-9');
  });

  it.each([401, 403])('maps %i to AUTHENTICATION_ERROR naming the Runtime API', async (status) => {
    peer.handler = () => ({ status, json: { detail: 'Unauthorized' } });
    const error = await rejection(client.getSession('agent-server-1'));
    expect(error.code).toBe('AUTHENTICATION_ERROR');
    expect(error.message).toContain(`the Runtime API at ${peer.url}/runtime`);
    expect(error.message).toContain('runtimeApiKey');
    expect(error.message).not.toContain('agent-server at');
    expect(error.details).toMatchObject({ status, operation: 'GET /sessions/agent-server-1' });
  });

  it('maps 409 to ALREADY_EXISTS with the detail', async () => {
    peer.handler = () => ({ status: 409, json: { detail: 'session agent-server-1 exists' } });
    const error = await rejection(client.start({ image: 'img', session_id: 'agent-server-1' }));
    expect(error.code).toBe('ALREADY_EXISTS');
    expect(error.message).toContain('session agent-server-1 exists');
  });

  it('maps 422 to INVALID_ARGUMENT carrying the validation issues', async () => {
    peer.handler = () => ({
      status: 422,
      json: {
        detail: [
          { type: 'missing', loc: ['body', 'image'], msg: 'Field required' },
          {
            type: 'value_error',
            loc: ['body', 'resource_factor'],
            msg: 'must be one of 1, 2, 4, 8',
          },
        ],
      },
    });
    const error = await rejection(client.start({ image: 'img', session_id: 'x' }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('body.image: Field required');
    expect(error.message).toContain('body.resource_factor: must be one of 1, 2, 4, 8');
  });

  it('maps 429 and 503 to RESOURCE_EXHAUSTED with the retry-after', async () => {
    peer.handler = () => ({
      status: 429,
      json: { detail: 'too many sessions' },
      headers: { 'retry-after': '7' },
    });
    const limited = await rejection(client.start({ image: 'img', session_id: 'x' }));
    expect(limited.code).toBe('RESOURCE_EXHAUSTED');
    expect(limited.details.retryAfterMs).toBe(7_000);
    expect(limited.message).toContain('retry in 7 s');
    peer.handler = () => ({ status: 503, json: { detail: 'engine busy' } });
    const unavailable = await rejection(client.getSession('x'));
    expect(unavailable.code).toBe('RESOURCE_EXHAUSTED');
    expect(unavailable.details.retryAfterMs).toBeUndefined();
  });

  it.each([500, 502])('maps %i to SERVER_ERROR with the detail', async (status) => {
    peer.handler = () => ({ status, json: { detail: 'engine failed', exception: 'boom' } });
    const error = await rejection(client.listSessions());
    expect(error.code).toBe('SERVER_ERROR');
    expect(error.message).toContain('engine failed: boom');
  });

  it('maps a malformed answer to PROTOCOL_ERROR', async () => {
    peer.handler = () => ({ status: 200, json: { ...session, pod_status: 'sleeping' } });
    const shape = await rejection(client.getSession('x'));
    expect(shape.code).toBe('PROTOCOL_ERROR');
    expect(shape.message).toContain('pod_status');
    peer.handler = () => ({ status: 200, text: '<html>proxy</html>' });
    expect((await rejection(client.getSession('x'))).code).toBe('PROTOCOL_ERROR');
  });

  it('never shows the key, even when the server echoes it', async () => {
    peer.handler = (request) => ({
      status: 401,
      json: { detail: `bad key ${request.headers['x-api-key']}` },
    });
    const error = await rejection(client.getSession('x'));
    expect(everythingOf(error)).not.toContain(API_KEY);
    expect(error.details.detail).toBe('bad key [runtime API key]');
    peer.handler = (request) => ({
      status: 500,
      json: { detail: 'failed', exception: `with ${request.headers['x-api-key']}` },
    });
    expect(everythingOf(await rejection(client.listSessions()))).not.toContain(API_KEY);
  });

  it('rejects with ABORTED when the signal fires', async () => {
    peer.handler = () => new Promise(() => {});
    const controller = new AbortController();
    const pending = client.getSession('x', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await rejection(pending)).code).toBe('ABORTED');
  });

  it('validates its options, naming the field', () => {
    expect(() => new RuntimeApiClient({ url: 'ftp://x', apiKey: API_KEY })).toThrow(/url/);
    expect(() => new RuntimeApiClient({ url: 'http://u:p@x', apiKey: API_KEY })).toThrow(
      /url must not carry credentials/,
    );
    expect(() => new RuntimeApiClient({ url: 'http://x', apiKey: '' })).toThrow(/apiKey/);
    expect(
      () => new RuntimeApiClient({ url: 'http://x', apiKey: API_KEY, requestTimeoutMs: -1 }),
    ).toThrow(/requestTimeoutMs/);
  });
});

describe('RuntimeApiClient without a server', () => {
  it('maps a refused connection to CONNECTION_ERROR naming the Runtime API', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await using client = new RuntimeApiClient({ url: `http://127.0.0.1:${port}`, apiKey: API_KEY });
    const error = await rejection(client.getSession('x'));
    expect(error.code).toBe('CONNECTION_ERROR');
    expect(error.message).toContain(`cannot reach the Runtime API at http://127.0.0.1:${port}`);
    expect(error.message).toContain('connection refused');
    expect(everythingOf(error)).not.toContain(API_KEY);
  });
});
