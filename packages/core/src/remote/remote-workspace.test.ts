import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { RemoteWorkspace } from './remote-workspace.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A tiny real HTTP server on loopback standing in for an agent-server (a test double). */
interface TestDouble {
  url: string;
  requests: Array<{ method: string; url: string; apiKey: string | undefined; body: string }>;
  close(): Promise<void>;
}

async function startTestDouble(handler: Handler): Promise<TestDouble> {
  const requests: TestDouble['requests'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const apiKey = request.headers['x-session-api-key'];
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        apiKey: typeof apiKey === 'string' ? apiKey : undefined,
        body,
      });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let local: string;
let source: string;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  local = await mkdtemp(path.join(tmpdir(), 'remote-workspace-unit-'));
  source = path.join(local, 'source.txt');
  await writeFile(source, 'payload');
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
afterAll(async () => {
  await rm(local, { recursive: true, force: true });
});

function workspaceFor(host: string, options: { apiKey?: string } = {}): RemoteWorkspace {
  const workspace = new RemoteWorkspace({ host, workingDir: '/w', ...options });
  cleanups.push(() => workspace.close());
  return workspace;
}

/** Every operation that talks to the server, by name. */
function operations(workspace: RemoteWorkspace): Array<[string, () => Promise<unknown>]> {
  return [
    ['executeCommand', () => workspace.executeCommand('echo hi')],
    ['fileUpload', () => workspace.fileUpload(source, 'up.txt')],
    ['fileDownload', () => workspace.fileDownload('down.txt', path.join(local, 'down.txt'))],
    ['gitChanges', () => workspace.gitChanges('.')],
    ['gitDiff', () => workspace.gitDiff('file.txt')],
    ['serverInfo', () => workspace.serverInfo()],
    [
      'executeAction',
      () => workspace.executeAction({ action: 'run_ipython', args: { code: '1' } }),
    ],
  ];
}

async function expectCode(
  name: string,
  promise: Promise<unknown>,
  code: WorkspaceError['code'],
): Promise<WorkspaceError> {
  const error = await rejectionOf(promise);
  expect(WorkspaceError.isInstance(error, code), `${name}: expected ${code}, got ${error}`).toBe(
    true,
  );
  return error as WorkspaceError;
}

describe('RemoteWorkspace without a server', () => {
  it('reports CONNECTION_ERROR naming the host and what to check on every operation', async () => {
    const host = `http://127.0.0.1:${await closedPort()}`;
    const workspace = workspaceFor(host);
    for (const [name, call] of operations(workspace)) {
      const error = await expectCode(name, call(), 'CONNECTION_ERROR');
      expect(error.message).toContain(host);
      expect(error.message).toContain('connection refused');
      expect(error.message).toContain('check that the server is running');
    }
    expect(await workspace.alive()).toBe(false);
    // A refused connection never leaves a partial download behind.
    await expect(stat(path.join(local, 'down.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a bad host or option with INVALID_ARGUMENT naming the field', () => {
    for (const [options, field] of [
      [{ host: 'ftp://example.com' }, 'host'],
      [{ host: 'not a url' }, 'host'],
      [{ host: 'http://127.0.0.1:1', requestTimeoutMs: 0 }, 'requestTimeoutMs'],
      [{ host: 'http://127.0.0.1:1', reconnectTimeoutMs: Number.NaN }, 'reconnectTimeoutMs'],
    ] as const) {
      try {
        new RemoteWorkspace({ workingDir: '/w', ...options });
        expect.unreachable(`accepted ${JSON.stringify(options)}`);
      } catch (error) {
        expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
        expect((error as Error).message).toContain(field);
      }
    }
  });

  it('refuses pause and resume with NOT_SUPPORTED and closes idempotently', async () => {
    const workspace = workspaceFor('http://127.0.0.1:1');
    await expectCode('pause', workspace.pause(), 'NOT_SUPPORTED');
    await expectCode('resume', workspace.resume(), 'NOT_SUPPORTED');
    await Promise.all([workspace.close(), workspace.close()]);
    await expectCode('after close', workspace.executeCommand('true'), 'WORKSPACE_CLOSED');
  });
});

describe('RemoteWorkspace against a misbehaving server (test double)', () => {
  it('turns a 500 into SERVER_ERROR carrying the detail, on every operation', async () => {
    const server = await startTestDouble((_request, _body, response) =>
      json(response, 500, {
        detail: 'Internal Server Error',
        exception: 'disk on fire',
        error_id: 'a'.repeat(32),
      }),
    );
    cleanups.push(() => server.close());
    const workspace = workspaceFor(server.url, { apiKey: 'k' });
    for (const [name, call] of operations(workspace)) {
      const error = await expectCode(name, call(), 'SERVER_ERROR');
      expect(error.message).toContain('disk on fire');
      expect(error.details.status).toBe(500);
    }
  });

  it('fetches the capabilities once (prepare() or serverInfo()), and prepare() never rejects', async () => {
    const server = await startTestDouble((request, _body, response) => {
      if (request.url === '/server_info') return json(response, 200, { uptime: 1, idle_time: 0 });
      json(response, 404, { detail: 'Not Found' });
    });
    cleanups.push(() => server.close());
    const urls = () => server.requests.map((request) => request.url);
    const workspace = workspaceFor(server.url);
    await workspace.prepare();
    await workspace.prepare();
    expect(urls()).toEqual(['/server_info']);

    // What serverInfo() read is kept for what needs the capabilities; serverInfo() asks anew.
    const informed = workspaceFor(server.url);
    await informed.serverInfo();
    await informed.prepare();
    expect(urls()).toEqual(['/server_info', '/server_info']);
    await informed.serverInfo();
    expect(urls()).toHaveLength(3);

    const unreachable = workspaceFor(`http://127.0.0.1:${await closedPort()}`);
    await expect(unreachable.prepare()).resolves.toBeUndefined();
    await unreachable.close();
    await expect(unreachable.prepare()).resolves.toBeUndefined();
  });

  it('turns a body that is not JSON into PROTOCOL_ERROR', async () => {
    const server = await startTestDouble((request, _body, response) => {
      if (request.url === '/server_info') return json(response, 200, { uptime: 1, idle_time: 0 });
      json(response, 200, '{"items": [tru');
    });
    cleanups.push(() => server.close());
    const workspace = workspaceFor(server.url);
    for (const [name, call] of operations(workspace)) {
      if (name === 'fileUpload' || name === 'fileDownload' || name === 'serverInfo') continue;
      const error = await expectCode(name, call(), 'PROTOCOL_ERROR');
      expect(error.message).toContain('not JSON');
    }
  });

  it('turns JSON of the wrong shape into PROTOCOL_ERROR naming the field', async () => {
    const server = await startTestDouble((request, _body, response) => {
      if (request.url === '/server_info') return json(response, 200, { uptime: 'soon' });
      if (request.url?.startsWith('/api/git/diff')) return json(response, 200, { modified: 3 });
      json(response, 200, [{ status: 'RENAMED', path: 'a' }]);
    });
    cleanups.push(() => server.close());
    const workspace = workspaceFor(server.url);
    expect(
      (await expectCode('serverInfo', workspace.serverInfo(), 'PROTOCOL_ERROR')).message,
    ).toContain('uptime');
    expect(
      (await expectCode('executeCommand', workspace.executeCommand('true'), 'PROTOCOL_ERROR'))
        .message,
    ).toContain('uptime');
    expect(
      (await expectCode('gitChanges', workspace.gitChanges('.'), 'PROTOCOL_ERROR')).message,
    ).toContain('0.status');
    expect(
      (await expectCode('gitDiff', workspace.gitDiff('a'), 'PROTOCOL_ERROR')).message,
    ).toContain('modified');
  });

  it('turns 401 into AUTHENTICATION_ERROR and sends the key only in the header', async () => {
    const server = await startTestDouble((_request, _body, response) =>
      json(response, 401, { detail: 'Unauthorized' }),
    );
    cleanups.push(() => server.close());
    const workspace = workspaceFor(server.url, { apiKey: 'wrong-key' });
    for (const [name, call] of operations(workspace)) {
      const error = await expectCode(name, call(), 'AUTHENTICATION_ERROR');
      expect(error.message).toContain('check apiKey');
    }
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(request.apiKey).toBe('wrong-key');
      expect(request.url).not.toContain('wrong-key');
    }
  });

  it('maps a git 400 to GIT_ERROR or INVALID_ARGUMENT with the detail', async () => {
    const server = await startTestDouble((request, _body, response) =>
      json(response, 400, {
        detail: request.url?.startsWith('/api/git/diff')
          ? 'path is a directory: /w/src'
          : 'git diff failed: fatal: bad object',
      }),
    );
    cleanups.push(() => server.close());
    const workspace = workspaceFor(server.url);
    const gitError = await expectCode('gitChanges', workspace.gitChanges('.'), 'GIT_ERROR');
    expect(gitError.message).toContain('fatal: bad object');
    const argument = await expectCode('gitDiff', workspace.gitDiff('src'), 'INVALID_ARGUMENT');
    expect(argument.message).toContain('path is a directory: /w/src');
  });
});

/**
 * Test double of an OpenHands agent-server's bash routes, with its documented quirks:
 * `timeout` must be an int (422 otherwise), output arrives as many events revealed over time,
 * search applies `order__gt` after paging (so later events only appear on later pages), and a
 * missing cwd is a spawn-error event with exit code -1.
 */
async function startOpenHandsDouble(events: number) {
  const commands = new Map<string, { outputs: object[]; visible: number }>();
  const timeouts: unknown[] = [];
  let clock = 0;
  const timestamp = () => `2026-08-22T10:00:00.${String(clock++).padStart(6, '0')}Z`;
  const hex = () =>
    Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const server = await startTestDouble((request, body, response) => {
    const url = new URL(request.url ?? '/', 'http://double');
    if (url.pathname === '/server_info') return json(response, 200, { uptime: 1, idle_time: 0 });
    if (url.pathname === '/api/bash/start_bash_command') {
      const { command, cwd, timeout } = JSON.parse(body);
      timeouts.push(timeout);
      if (!Number.isInteger(timeout)) {
        return json(response, 422, {
          detail: [
            {
              type: 'int_from_float',
              loc: ['body', 'timeout'],
              msg: 'Input should be a valid integer, got a number with a fractional part',
              input: timeout,
            },
          ],
        });
      }
      const id = hex();
      const output = (order: number, fields: object) => ({
        kind: 'BashOutput',
        id: hex(),
        timestamp: timestamp(),
        command_id: id,
        order,
        exit_code: null,
        stdout: null,
        stderr: null,
        ...fields,
      });
      const outputs =
        cwd === '/w/missing'
          ? [
              output(0, {
                exit_code: -1,
                stderr:
                  "Error executing command: [Errno 2] No such file or directory: '/w/missing'",
              }),
            ]
          : Array.from({ length: events }, (_, order) =>
              output(order, {
                ...(order % 10 === 9 ? { stderr: `err ${order}\n` } : { stdout: `out ${order}\n` }),
                ...(order === events - 1 ? { exit_code: 0 } : {}),
              }),
            );
      commands.set(id, { outputs, visible: 0 });
      return json(response, 200, {
        kind: 'BashCommand',
        id,
        timestamp: timestamp(),
        command,
        cwd,
        timeout,
      });
    }
    if (url.pathname === '/api/bash/bash_events/search') {
      const record = commands.get(url.searchParams.get('command_id__eq') ?? '');
      if (!record) return json(response, 200, { items: [], next_page_id: null });
      record.visible = Math.min(record.outputs.length, record.visible + 40);
      const files = record.outputs.slice(0, record.visible) as Array<{ id: string; order: number }>;
      const pageId = url.searchParams.get('page_id');
      const start = pageId ? files.findIndex((event) => event.id === pageId) : 0;
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const page = files.slice(start, start + limit);
      const next = files[start + limit];
      const orderGt = Number(url.searchParams.get('order__gt') ?? -1);
      return json(response, 200, {
        items: page.filter((event) => event.order > orderGt),
        next_page_id: next ? next.id : null,
      });
    }
    json(response, 404, { detail: 'Not Found' });
  });
  cleanups.push(() => server.close());
  return { server, timeouts };
}

describe('RemoteWorkspace against the plain OpenHands protocol (test double)', () => {
  it('follows next_page_id, delivers every event exactly once and sends whole seconds when told', async () => {
    const events = 250;
    const { server, timeouts } = await startOpenHandsDouble(events);
    const workspace = workspaceFor(server.url);
    const chunks: string[] = [];
    const result = await workspace.executeCommand('produce', {
      timeoutMs: 1_500,
      onStdout: (chunk) => chunks.push(chunk),
    });
    const expectedStdout = Array.from({ length: events }, (_, order) =>
      order % 10 === 9 ? '' : `out ${order}\n`,
    );
    expect(result).toMatchObject({
      command: 'produce',
      exitCode: 0,
      timeoutOccurred: false,
      stdout: expectedStdout.join(''),
    });
    expect(result.stderr).toBe(
      Array.from({ length: events / 10 }, (_, i) => `err ${i * 10 + 9}\n`).join(''),
    );
    expect(chunks).toEqual(expectedStdout.filter(Boolean));
    const searches = server.requests.filter((request) => request.url.includes('/search'));
    expect(searches.some((request) => request.url.includes('page_id='))).toBe(true);

    // 1.5 s was refused as a fraction, then sent as 2; later commands send whole seconds at once.
    await workspace.executeCommand('produce', { timeoutMs: 1_500 });
    expect(timeouts).toEqual([1.5, 2, 2]);
  });

  it('reports the spawn-error event of a missing cwd as INVALID_CWD, not a timeout', async () => {
    const { server } = await startOpenHandsDouble(1);
    const workspace = workspaceFor(server.url);
    const error = await expectCode(
      'executeCommand',
      workspace.executeCommand('true', { cwd: 'missing' }),
      'INVALID_CWD',
    );
    expect(error.message).toContain('/w/missing');
    const starts = server.requests.filter((request) => request.url.includes('start_bash_command'));
    expect(starts.map((request) => JSON.parse(request.body).cwd)).toEqual(['/w/missing']);
  });
});
