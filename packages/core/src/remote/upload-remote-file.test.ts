import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { AgentServerClient } from './agent-server-client.js';
import { uploadRemoteFile } from './upload-remote-file.js';

const KEY = 'upload-key-0123456789';
const CONTENT = randomBytes(8 * 1024 * 1024 + 5);

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A real HTTP server on loopback whose answer each test sets. */
let handler: Handler;
const server: Server = createServer((request, response) => handler(request, response));
let host = '';
let dir = '';
let source = '';
let client: AgentServerClient;

const upload = () =>
  uploadRemoteFile({ client, sourcePath: source, destinationPath: '/workspace/up.bin' });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'upload-remote-file-'));
  source = path.join(dir, 'source.bin');
  await writeFile(source, CONTENT);
  client = new AgentServerClient({
    host,
    apiKey: KEY,
    requestTimeoutMs: 5_000,
    connectTimeoutMs: 5_000,
    maxConnections: 2,
  });
});
afterEach(async () => {
  await client.close();
  await rm(dir, { recursive: true, force: true });
});

describe('uploadRemoteFile', () => {
  it('sends the file as one multipart part of the announced length, with the key', async () => {
    let received = Buffer.alloc(0);
    let declared = -1;
    let key: unknown;
    handler = (request, response) => {
      declared = Number(request.headers['content-length']);
      key = request.headers['x-session-api-key'];
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received = Buffer.concat(chunks);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"success":true}');
      });
    };
    expect(await upload()).toMatchObject({ success: true, fileSize: CONTENT.length });
    expect(key).toBe(KEY);
    expect(received.length).toBe(declared);
    // The part holds the file byte for byte, between its headers and the closing boundary.
    const start = received.indexOf('\r\n\r\n') + 4;
    expect(received.subarray(start, start + CONTENT.length).equals(CONTENT)).toBe(true);
    expect(received.subarray(start + CONTENT.length).toString()).toMatch(/^\r\n--.+--\r\n$/);
  });

  it('reports a 413 answered before the body was read as a result', async () => {
    // As the agent-server does for a declared length over its limit: the answer comes at once,
    // the body is left unread.
    handler = (_request, response) => {
      response.writeHead(413, { 'content-type': 'application/json' });
      response.end('{"detail":"File too large: limit is 1 bytes"}');
    };
    const result = await upload();
    expect(result).toMatchObject({ success: false });
    expect(result.error).toContain('File too large: limit is 1 bytes (HTTP 413)');
  });

  it('throws CONNECTION_ERROR when the connection is cut mid-body', async () => {
    handler = (request) => {
      request.once('data', () => request.socket.destroy());
    };
    const failure = await rejectionOf(upload());
    expect(WorkspaceError.isInstance(failure, 'CONNECTION_ERROR')).toBe(true);
  });
});
