import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { AgentServerClient } from './agent-server-client.js';
import { downloadToFile } from './download-to-file.js';

const KEY = 'download-key-0123456789';
const BODY = randomBytes(3 * 1024 * 1024 + 17);

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A real HTTP server on loopback whose answer each test sets. */
let handler: Handler;
const server: Server = createServer((request, response) => handler(request, response));
let host = '';
let dir = '';
let client: AgentServerClient;

/** Sends the first `sent` bytes of a `BODY`-long answer, then cuts the connection. */
const cutAfter =
  (sent: number): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-length': BODY.length });
    response.write(BODY.subarray(0, sent), () => response.socket?.destroy());
  };

function download(name: string, signal?: AbortSignal) {
  return downloadToFile({
    client,
    request: { method: 'GET', path: '/api/file/download', query: { path: '/x' }, signal },
    sourcePath: '/x',
    destinationPath: path.join(dir, name),
    notFound: 'file not found in the workspace',
  });
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'download-to-file-'));
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

describe('downloadToFile', () => {
  it('streams the body into the file, sending the key, and reuses the connection', async () => {
    const keys: (string | undefined)[] = [];
    const sockets = new Set<unknown>();
    handler = (request, response) => {
      keys.push(request.headers['x-session-api-key'] as string | undefined);
      sockets.add(request.socket);
      response.writeHead(200, { 'content-length': BODY.length, 'x-extra': 'yes' });
      response.end(BODY);
    };
    const first = await download('a.bin');
    const second = await download('b.bin');
    expect(first.result).toMatchObject({ success: true, fileSize: BODY.length });
    expect(first.headers?.['x-extra']).toBe('yes');
    expect(second.result.success).toBe(true);
    expect(sha(await readFile(path.join(dir, 'a.bin')))).toBe(sha(BODY));
    expect(keys).toEqual([KEY, KEY]);
    expect(sockets.size).toBe(1);
  });

  it('throws CONNECTION_ERROR for a body cut off midway, leaving no file and no temporary file', async () => {
    await writeFile(path.join(dir, 'kept.bin'), 'old content');
    handler = cutAfter(1024 * 1024);
    const failure = await rejectionOf(download('kept.bin'));
    expect(WorkspaceError.isInstance(failure, 'CONNECTION_ERROR')).toBe(true);
    // The destination is as it was, and nothing else was left behind.
    expect(await readFile(path.join(dir, 'kept.bin'), 'utf8')).toBe('old content');
    expect(await readdir(dir)).toEqual(['kept.bin']);
  });

  it('throws CONNECTION_ERROR naming a stalled body once the request timeout passes', async () => {
    await client.close();
    client = new AgentServerClient({
      host,
      apiKey: KEY,
      requestTimeoutMs: 300,
      connectTimeoutMs: 5_000,
      maxConnections: 2,
    });
    handler = (_request, response) => {
      response.writeHead(200, { 'content-length': BODY.length });
      response.write(BODY.subarray(0, 1024));
    };
    const failure = await rejectionOf(download('stalled.bin'));
    expect(WorkspaceError.isInstance(failure, 'CONNECTION_ERROR')).toBe(true);
    expect((failure as Error).message).toContain('response body stalled');
    expect(await readdir(dir)).toEqual([]);
  });

  it('throws CONNECTION_ERROR when no answer comes within the request timeout', async () => {
    await client.close();
    client = new AgentServerClient({
      host,
      apiKey: KEY,
      requestTimeoutMs: 300,
      connectTimeoutMs: 5_000,
      maxConnections: 2,
    });
    handler = () => {};
    const failure = await rejectionOf(download('silent.bin'));
    expect(WorkspaceError.isInstance(failure, 'CONNECTION_ERROR')).toBe(true);
    expect((failure as Error).message).toContain('no response in time');
    expect(await readdir(dir)).toEqual([]);
  });

  it('rethrows as ABORTED when its signal fires mid-body, leaving no file', async () => {
    const controller = new AbortController();
    handler = (_request, response) => {
      response.writeHead(200, { 'content-length': BODY.length });
      response.write(BODY.subarray(0, 1024), () => controller.abort());
    };
    const failure = await rejectionOf(download('aborted.bin', controller.signal));
    expect(WorkspaceError.isInstance(failure, 'ABORTED')).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  });

  it('reports a refusal naming the file as a result, reading its JSON detail', async () => {
    handler = (_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"detail":"File not found"}');
    };
    const { result } = await download('missing.bin');
    expect(result).toMatchObject({ success: false });
    expect(result.error).toContain('file not found in the workspace (HTTP 404)');
    expect(await readdir(dir)).toEqual([]);
  });

  it('throws AUTHENTICATION_ERROR for a 401', async () => {
    handler = (_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"detail":"Unauthorized"}');
    };
    const failure = await rejectionOf(download('denied.bin'));
    expect(WorkspaceError.isInstance(failure, 'AUTHENTICATION_ERROR')).toBe(true);
  });

  it('lets close() wait for a download in flight, and refuses downloads after it', async () => {
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      handler = (_request, response) => {
        response.writeHead(200, { 'content-length': BODY.length });
        response.write(BODY.subarray(0, 1024));
        release = () => response.end(BODY.subarray(1024));
        resolve();
      };
    });
    const running = download('late.bin');
    await started;
    const closing = client.close();
    release();
    // Closing the connection under the download would fail it.
    expect((await running).result.success).toBe(true);
    await closing;
    expect(sha(await readFile(path.join(dir, 'late.bin')))).toBe(sha(BODY));
    const refused = await rejectionOf(download('after.bin'));
    expect(WorkspaceError.isInstance(refused, 'CONNECTION_ERROR')).toBe(true);
  });
});
