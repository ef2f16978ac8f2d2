import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_ACTION_NAME_LENGTH, MAX_ACTION_TIMEOUT_SECONDS } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { type Answer, call } from './support/http.js';
import { AUTH, createScratch, type Scratch, ServerProcess } from './support/server-process.js';

// Above what Chromium with a small page uses (about 400 MiB PSS here), below the hogs.
const MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;

/** A body of `/execute_action` the contract must refuse with a 400 naming `field`. */
interface BadBody {
  name: string;
  body: string;
  field: string;
  /** Default 400. */
  status?: number;
}

const action = (name: string, args: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ action: { action: name, args, ...extra } });

const BAD_BODIES: BadBody[] = [
  // Like every JSON route of the server (and FastAPI), a body that does not parse is a 422.
  { name: 'not JSON', body: '{"action":', field: '', status: 422 },
  { name: 'no action', body: '{}', field: 'body.action' },
  { name: 'action a string', body: '{"action":"run"}', field: 'body.action' },
  { name: 'name missing', body: '{"action":{"args":{}}}', field: 'body.action.action' },
  { name: 'name empty', body: action('', {}), field: 'body.action.action' },
  {
    name: 'name too long',
    body: action('x'.repeat(MAX_ACTION_NAME_LENGTH + 1), {}),
    field: 'body.action.action',
  },
  { name: 'args an array', body: action('run', []), field: 'body.action.args' },
  {
    name: 'negative timeout',
    body: action('run', { command: 'true' }, { timeout: -1 }),
    field: 'body.action.timeout',
  },
  {
    name: 'timeout over the limit',
    body: action('run', { command: 'true' }, { timeout: MAX_ACTION_TIMEOUT_SECONDS + 1 }),
    field: 'body.action.timeout',
  },
  { name: 'unknown action', body: action('teleport', {}), field: 'action.action' },
  { name: 'run without command', body: action('run', {}), field: 'action.args.command' },
  {
    name: 'run with NUL',
    body: action('run', { command: 'a\u0000b' }),
    field: 'action.args.command',
  },
  {
    name: 'run cwd missing',
    body: action('run', { command: 'true', cwd: 'no/such/dir' }),
    field: 'action.args.cwd',
  },
  { name: 'read without path', body: action('read', {}), field: 'action.args.path' },
  {
    name: 'read negative start',
    body: action('read', { path: 'a', start: -3 }),
    field: 'action.args.start',
  },
  {
    name: 'write without content',
    body: action('write', { path: 'a' }),
    field: 'action.args.content',
  },
  {
    name: 'edit bad command',
    body: action('edit', { path: 'a', command: 'explode' }),
    field: 'action.args.command',
  },
  {
    name: 'edit LLM-drafted',
    body: action('edit', { path: 'a', command: 'create', impl_source: 'default' }),
    field: 'action.args.impl_source',
  },
  {
    name: 'ipython code a number',
    body: action('run_ipython', { code: 7 }),
    field: 'action.args.code',
  },
  {
    name: 'browse relative URL',
    body: action('browse', { url: 'not a url' }),
    field: 'action.args.url',
  },
  {
    name: 'browse_interactive unknown call',
    body: action('browse_interactive', { browser_actions: 'explode("1")' }),
    field: 'action.args.browser_actions',
  },
  {
    name: 'browse_interactive syntax error',
    body: action('browse_interactive', { browser_actions: 'click("1"' }),
    field: 'action.args.browser_actions',
  },
];

function detailOf(answer: Answer): string {
  return String((answer.json as { detail?: unknown } | undefined)?.detail ?? '');
}

describe('/execute_action under bad input, runaway work and failing plugins', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let pages: Server;
  let pagesUrl: string;
  const figures = new Figures('execute_action');

  const execute = (body: string, timeoutMs = 60_000) =>
    call(`${server.url}/execute_action`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body,
      timeoutMs,
    });

  beforeAll(async () => {
    scratch = await createScratch('execute-action');
    pages = createServer((request, response) => {
      if (request.url === '/never') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<html><body><h1>Loading forever</h1>');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><head><title>Fine</title></head><body><p>fine page</p></body></html>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: [
        '--plugin',
        'browser',
        '--plugin',
        'python',
        '--process-tree-memory-limit-bytes',
        String(MEMORY_LIMIT_BYTES),
      ],
    });
  });

  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await server?.stop();
    pages?.closeAllConnections();
    pages?.close();
    await scratch?.remove();
  });

  it('refuses malformed bodies, unknown actions and bad arguments with a 400 naming the field', async () => {
    const violations: string[] = [];
    for (const bad of BAD_BODIES) {
      figures.tried++;
      const answer = await execute(bad.body);
      if (answer.status === (bad.status ?? 400) && detailOf(answer).startsWith(bad.field)) {
        figures.rejected++;
      } else {
        figures.escapes++;
        violations.push(`${bad.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }
    expect(violations).toEqual([]);
    const unauthenticated = await call(`${server.url}/execute_action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: action('run', { command: 'true' }),
    });
    expect(unauthenticated.status).toBe(401);
  });

  it('answers plugin routes that do not exist with 404 and unauthenticated ones with 401', async () => {
    for (const target of [
      '/api/plugins/browser/nope',
      '/api/plugins/no-such/x',
      '/api/plugins/%00/x',
    ]) {
      const get = await call(`${server.url}${target}`, { headers: AUTH });
      expect(get.status, target).toBe(404);
      const post = await call(`${server.url}${target}`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(post.status, target).toBe(404);
      expect((await call(`${server.url}${target}`)).status, target).toBe(401);
    }
  });

  it('kills a command tree that grows past the memory limit and says so, and keeps serving', async () => {
    const hog = `node -e "const b=[];for(;;){b.push(Buffer.alloc(32*1024*1024,1))}"`;
    const answer = await execute(action('run', { command: hog }, { timeout: 60 }));
    expect(answer.status).toBe(200);
    const observation = answer.json as {
      content: string;
      extras: { metadata: { exit_code: number } };
    };
    expect(observation.content).toMatch(
      /killed: its processes used .* over the limit of 1024\.0 MiB/,
    );
    expect(observation.extras.metadata.exit_code).not.toBe(0);
    const after = await execute(action('run', { command: 'echo alive' }));
    expect((after.json as { content: string }).content).toContain('alive');
  });

  it('stops a Python cell past the memory limit and a cell past its time, then runs the next', async () => {
    const set = await execute(action('run_ipython', { code: 'kept = 41' }), 120_000);
    expect(set.status).toBe(200);
    const hog = await execute(
      action('run_ipython', {
        code: 'x = bytearray(1536 * 1024 * 1024)\nx[::4096] = b"a" * len(x[::4096])',
      }),
      120_000,
    );
    expect(hog.status).toBe(200);
    expect((hog.json as { content: string }).content).toMatch(/MiB/);
    const loop = await execute(
      action('run_ipython', { code: 'while True: pass' }, { timeout: 2 }),
      60_000,
    );
    expect(loop.status).toBe(200);
    expect((loop.json as { content: string }).content).toMatch(/interrupt|time/i);
    const next = await execute(action('run_ipython', { code: 'print(6 * 7)' }), 60_000);
    expect((next.json as { content: string }).content).toContain('42');
  });

  it('answers a page that never finishes loading within the action time, and a dropped client', async () => {
    const slow = await execute(
      action('browse', { url: `${pagesUrl}/never` }, { timeout: 3 }),
      60_000,
    );
    expect(slow.status).toBe(200);
    expect(slow.json, slow.text.slice(0, 600)).toMatchObject({ observation: 'browse' });
    expect((slow.json as { extras: { error: boolean } }).extras.error).toBe(true);
    const dropped = call(`${server.url}/execute_action`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: action('browse', { url: `${pagesUrl}/never` }, { timeout: 30 }),
      timeoutMs: 500,
    });
    await expect(dropped).rejects.toThrow();
    const fine = await execute(action('browse', { url: `${pagesUrl}/fine` }), 60_000);
    expect((fine.json as { title: string }).title).toBe('Fine');
  });

  it('answers a flood of concurrent actions with observations or 429s and keeps serving', async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        execute(
          index % 2
            ? action('run', { command: `echo ${index}` })
            : action('read', { path: 'missing.txt' }),
        ),
      ),
    );
    for (const answer of answers) expect([200, 429]).toContain(answer.status);
    const info = (await call(`${server.url}/server_info`)).json as {
      plugins: { name: string; state: string }[];
      resources: { server_rss_bytes: number; process_tree_memory_limit_bytes: number };
    };
    expect(info.plugins.map((plugin) => [plugin.name, plugin.state])).toEqual([
      ['browser', 'ready'],
      ['python', 'ready'],
    ]);
    expect(info.resources.process_tree_memory_limit_bytes).toBe(MEMORY_LIMIT_BYTES);
    expect(server.exit).toBeUndefined();
  });
});

describe('plugins that cannot start', () => {
  it('report why in /server_info and the log, while the server serves from the start', async () => {
    const scratch = await createScratch('plugin-failures');
    const server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: ['--plugin', 'python', '--plugin', 'no-such-plugin'],
      env: { AGENT_WORKSPACE_PYTHON: '/nonexistent/python3' },
    });
    try {
      expect((await call(`${server.url}/health`)).status).toBe(200);
      await expect
        .poll(async () => {
          const info = (await call(`${server.url}/server_info`)).json as {
            plugins: { name: string; state: string; error: string | null }[];
          };
          return info.plugins.map(({ name, state }) => `${name}:${state}`);
        })
        .toEqual(['python:failed', 'no-such-plugin:failed']);
      const info = (await call(`${server.url}/server_info`)).json as {
        plugins: { name: string; error: string }[];
      };
      expect(info.plugins[0]?.error).toMatch(/apt-get install/);
      expect(info.plugins[1]?.error).toMatch(/neither a known plugin/);
      const cell = await call(`${server.url}/execute_action`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: action('run_ipython', { code: '1' }),
      });
      expect(cell.json).toMatchObject({
        observation: 'error',
        extras: { error_id: 'PLUGIN_FAILED' },
      });
      const browse = await call(`${server.url}/execute_action`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: action('browse', { url: 'http://127.0.0.1:1/' }),
      });
      expect(browse.json).toMatchObject({
        observation: 'error',
        extras: { error_id: 'PLUGIN_DISABLED' },
      });
      expect(server.exit).toBeUndefined();
    } finally {
      await server.stop();
      await scratch.remove();
    }
  });
});
