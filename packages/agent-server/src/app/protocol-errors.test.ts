import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import { MAX_JSON_DEPTH } from './parse-json-body.js';

/** Sends raw bytes and resolves with the status code and body of the answer. */
function raw(t: TestServer, request: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(t.server.port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body });
    });
    socket.on('error', reject);
    socket.end(request);
  });
}

describe('answers in the error envelope where the framework would not', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('for requests Node cannot parse, huge headers and a missing Host', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'GET /alive HTTP/1.1\r\nConnection: close\r\n\r\n',
    ]) {
      const { status, body } = await raw(t, request);
      expect([400, 431], request.slice(0, 40)).toContain(status);
      expect(JSON.parse(body), request.slice(0, 40)).toEqual({ detail: expect.any(String) });
    }
  });

  it('for bad percent-encoding and over-long path segments', async () => {
    const bad = await fetch(`${t.url}/api/bash/bash_events/%zz`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ detail: expect.stringContaining('Malformed URL') });
    const long = await fetch(`${t.url}/api/bash/bash_events/${'a'.repeat(5000)}`);
    expect(long.status).toBe(414);
    expect(await long.json()).toEqual({ detail: 'A path segment is too long' });
  });

  it('refuses JSON bodies that are not UTF-8 or nest too deep', async () => {
    const post = (body: Buffer | string) =>
      fetch(`${t.url}/api/bash/start_bash_command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const invalid = await post(Buffer.from('{"command":"echo \xff\xfe"}', 'latin1'));
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({
      detail: [{ type: 'json_invalid', ctx: { error: 'the body is not valid UTF-8' } }],
    });
    const deep = await post(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expect(deep.status).toBe(422);
    expect(JSON.stringify(await deep.json())).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('for plain requests and bad handshakes on websocket routes', async () => {
    const plain = await fetch(`${t.url}/sockets/exec`);
    expect(plain.status).toBe(400);
    expect(await plain.json()).toEqual({ detail: 'This route takes websocket connections only' });
    const { status, body } = await raw(
      t,
      'GET /sockets/bash-events HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n',
    );
    expect(status).toBe(400);
    expect(JSON.parse(body)).toEqual({ detail: 'Missing or invalid Sec-WebSocket-Key header' });
  });
});
