import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const HEX_ID = expect.stringMatching(/^[0-9a-f]{32}$/);
const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

type Json = Record<string, unknown>;
interface Page {
  items: Json[];
  next_page_id: string | null;
}

/** How long and how often `vi.waitFor` polls for the server to catch up. */
const WAIT = { timeout: 10_000, interval: 20 };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function call(
  method: string,
  route: string,
  body?: unknown,
  base = server.url,
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${base}${route}`, {
    method,
    ...(body === undefined
      ? {}
      : {
          headers: { 'content-type': 'application/json' },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

async function search(query: Record<string, string | number>): Promise<Page> {
  const params = new URLSearchParams(
    Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
  );
  const { status, json } = await call('GET', `/api/bash/bash_events/search?${params}`);
  expect(status).toBe(200);
  return json as unknown as Page;
}

/** Every output of a command, following `next_page_id`. */
async function outputsOf(commandId: string): Promise<Json[]> {
  const items: Json[] = [];
  let pageId: string | null = null;
  do {
    const page: Page = await search({
      command_id__eq: commandId,
      ...(pageId === null ? {} : { page_id: pageId }),
    });
    items.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId !== null);
  return items;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return !/^\S+ \(.*\) [ZX]/.test(stat);
}

describe('POST /api/bash/start_bash_command', () => {
  it('returns the BashCommand at once, with the exact OpenHands shape', async () => {
    await mkdir(path.join(server.dir, 'sub'), { recursive: true });
    const { status, json } = await call('POST', '/api/bash/start_bash_command', {
      command: 'while [ ! -e release ]; do sleep 0.01; done; pwd -P',
      cwd: 'sub',
      timeout: 12.5,
    });
    expect(status).toBe(200);
    expect(json).toEqual({
      kind: 'BashCommand',
      id: HEX_ID,
      timestamp: TIMESTAMP,
      command: 'while [ ! -e release ]; do sleep 0.01; done; pwd -P',
      cwd: path.join(server.dir, 'sub'),
      timeout: 12.5,
    });
    // It returned while the command still waits for the file.
    expect(await outputsOf(json.id as string)).toEqual([]);
    await writeFile(path.join(server.dir, 'sub', 'release'), '');
    const outputs = await vi.waitFor(async () => {
      const items = await outputsOf(json.id as string);
      expect(items.some((item) => item.exit_code !== null)).toBe(true);
      return items;
    }, WAIT);
    expect(outputs).toEqual([
      {
        kind: 'BashOutput',
        id: HEX_ID,
        timestamp: TIMESTAMP,
        command_id: json.id,
        order: 0,
        exit_code: null,
        stdout: `${path.join(server.dir, 'sub')}\n`,
        stderr: null,
      },
      {
        kind: 'BashOutput',
        id: HEX_ID,
        timestamp: TIMESTAMP,
        command_id: json.id,
        order: 1,
        exit_code: 0,
        stdout: null,
        stderr: null,
      },
    ]);
  });

  it('streams output as it is produced, in several events before the exit', async () => {
    const { json: command } = await call('POST', '/api/bash/start_bash_command', {
      command: 'echo first; while [ ! -e go-stream ]; do sleep 0.01; done; echo second >&2',
    });
    const first = await vi.waitFor(async () => {
      const items = await outputsOf(command.id as string);
      expect(items.length).toBeGreaterThan(0);
      return items;
    }, WAIT);
    // The first line is visible while the command is still blocked on the file.
    expect(first).toEqual([
      expect.objectContaining({ order: 0, stdout: 'first\n', exit_code: null }),
    ]);
    await writeFile(path.join(server.dir, 'go-stream'), '');
    const all = await vi.waitFor(async () => {
      const items = await outputsOf(command.id as string);
      expect(items.at(-1)?.exit_code).toBe(0);
      return items;
    }, WAIT);
    expect(
      all.map(({ order, stdout, stderr, exit_code }) => ({ order, stdout, stderr, exit_code })),
    ).toEqual([
      { order: 0, stdout: 'first\n', stderr: null, exit_code: null },
      { order: 1, stdout: null, stderr: 'second\n', exit_code: null },
      { order: 2, stdout: null, stderr: null, exit_code: 0 },
    ]);
  });

  it('runs in workingDir by default and hides the session keys from commands', async () => {
    process.env.SESSION_API_KEY = 'server-secret';
    process.env.OH_SESSION_API_KEYS_0 = 'other-secret';
    process.env.AW_VISIBLE = 'visible';
    try {
      const { json } = await call('POST', '/api/bash/execute_bash_command', {
        command:
          'pwd -P; printenv SESSION_API_KEY || echo no-key; printenv OH_SESSION_API_KEYS_0 || echo no-keys; printenv AW_VISIBLE',
      });
      expect(json.stdout).toBe(`${server.dir}\nno-key\nno-keys\nvisible\n`);
    } finally {
      delete process.env.SESSION_API_KEY;
      delete process.env.OH_SESSION_API_KEYS_0;
      delete process.env.AW_VISIBLE;
    }
  });
});

describe('POST /api/bash/execute_bash_command', () => {
  it('waits and returns a final BashOutput holding the whole output', async () => {
    const { status, json } = await call('POST', '/api/bash/execute_bash_command', {
      command: 'echo one; sleep 0.1; echo two; echo oops >&2; sleep 0.1; echo three; exit 4',
    });
    expect(status).toBe(200);
    expect(json).toEqual({
      kind: 'BashOutput',
      id: HEX_ID,
      timestamp: TIMESTAMP,
      command_id: HEX_ID,
      order: expect.any(Number),
      exit_code: 4,
      stdout: 'one\ntwo\nthree\n',
      stderr: 'oops\n',
    });
    const outputs = await outputsOf(json.command_id as string);
    // The stored events hold the same output in several chunks; the last one is the exit.
    expect(outputs.length).toBeGreaterThanOrEqual(4);
    expect(outputs.at(-1)).toEqual({ ...json, stdout: null, stderr: null });
    expect(outputs.map((item) => item.stdout ?? '').join('')).toBe('one\ntwo\nthree\n');
    expect(outputs.map((item) => item.order)).toEqual(outputs.map((_item, index) => index));
    for (const item of outputs.slice(0, -1)) {
      expect([item.stdout, item.stderr].filter((text) => text !== null)).toHaveLength(1);
    }
  });

  it('returns null stdout and stderr for a silent command', async () => {
    const { json } = await call('POST', '/api/bash/execute_bash_command', { command: 'true' });
    expect(json).toMatchObject({ order: 0, exit_code: 0, stdout: null, stderr: null });
  });

  it('honours a fractional timeout: 0.5 s is not truncated to 0', async () => {
    const { json } = await call('POST', '/api/bash/execute_bash_command', {
      command: 'echo started; sleep 0.1; echo still-running; sleep 30',
      timeout: 0.5,
    });
    expect(json).toMatchObject({ exit_code: -1, stdout: 'started\nstill-running\n' });
  });

  it('kills the whole process tree on timeout', async () => {
    const pidFile = path.join(server.dir, 'tree.pid');
    const { json } = await call('POST', '/api/bash/execute_bash_command', {
      command: `(trap '' TERM; exec sleep 30) & echo $! > ${pidFile}; sleep 30`,
      timeout: 0.5,
    });
    expect(json.exit_code).toBe(-1);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), WAIT);
  });

  it('runs 100 concurrent commands with correctly attributed output', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_unused, index) =>
        call('POST', '/api/bash/execute_bash_command', {
          command: `echo out-${index}; sleep 0.0$((${index} % 5)); echo err-${index} >&2; exit $((${index} % 7))`,
        }),
      ),
    );
    results.forEach(({ status, json }, index) => {
      expect(status).toBe(200);
      expect(json).toMatchObject({
        exit_code: index % 7,
        stdout: `out-${index}\n`,
        stderr: `err-${index}\n`,
      });
    });
    const streams = await Promise.all(
      results.map(({ json }) => outputsOf(json.command_id as string)),
    );
    streams.forEach((outputs, index) => {
      expect(outputs.map((item) => item.stdout ?? '').join('')).toBe(`out-${index}\n`);
      expect(outputs.map((item) => item.stderr ?? '').join('')).toBe(`err-${index}\n`);
    });
  });
});

describe('GET /api/bash/bash_events/search', () => {
  let commandId: string;
  let total: number;
  const bytes = 64 * 1024 * 130;
  beforeAll(async () => {
    // 130 × 64 KiB cannot fit in fewer than 130 events of at most 64 Ki characters.
    const { json } = await call('POST', '/api/bash/execute_bash_command', {
      command: `head -c ${bytes} /dev/zero | tr '\\0' a`,
    });
    commandId = json.command_id as string;
    total = (json.order as number) + 1;
  });

  it('pages through more than 100 events with next_page_id, each exactly once', async () => {
    expect(total).toBeGreaterThan(130);
    const first = await search({ command_id__eq: commandId, limit: 100 });
    // 100 events of 64 Ki characters are more than a page's 4 MiB: the page ends earlier.
    expect(first.items.length).toBeGreaterThan(50);
    expect(first.items.length).toBeLessThan(100);
    expect(first.next_page_id).toEqual(expect.any(String));
    const outputs = await outputsOf(commandId);
    expect(outputs.map((item) => item.order)).toEqual(Array.from({ length: total }, (_u, i) => i));
    expect(
      outputs.reduce((sum, item) => sum + ((item.stdout as string | null)?.length ?? 0), 0),
    ).toBe(bytes);
    for (const item of outputs)
      expect(((item.stdout as string | null) ?? '').length).toBeLessThanOrEqual(64 * 1024);
  });

  it('applies order__gt before paging, so later events are reachable on page 1', async () => {
    const page = await search({ command_id__eq: commandId, order__gt: 110, limit: 100 });
    expect(page.items.map((item) => item.order)).toEqual(
      Array.from({ length: total - 111 }, (_u, i) => 111 + i),
    );
    expect(page.next_page_id).toBeNull();
    const small = await search({ command_id__eq: commandId, order__gt: 110, limit: 5 });
    expect(small.items.map((item) => item.order)).toEqual([111, 112, 113, 114, 115]);
    const next = await search({
      command_id__eq: commandId,
      order__gt: 110,
      limit: 5,
      page_id: small.next_page_id as string,
    });
    expect(next.items.map((item) => item.order)).toEqual([116, 117, 118, 119, 120]);
  });

  it('sorts by TIMESTAMP_DESC and pages backwards', async () => {
    const page = await search({
      command_id__eq: commandId,
      sort_order: 'TIMESTAMP_DESC',
      limit: 3,
    });
    expect(page.items.map((item) => item.order)).toEqual([total - 1, total - 2, total - 3]);
    const next = await search({
      command_id__eq: commandId,
      sort_order: 'TIMESTAMP_DESC',
      limit: 3,
      page_id: page.next_page_id as string,
    });
    expect(next.items.map((item) => item.order)).toEqual([total - 4, total - 5, total - 6]);
  });

  it('accepts a dashed command id and filters by kind', async () => {
    const dashed = commandId
      .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')
      .toUpperCase();
    const page = await search({ command_id__eq: dashed, limit: 2 });
    expect(page.items.map((item) => item.command_id)).toEqual([commandId, commandId]);
    const commands = await search({ kind__eq: 'BashCommand', sort_order: 'TIMESTAMP_DESC' });
    expect(commands.items.length).toBeGreaterThan(0);
    expect(commands.items.every((item) => item.kind === 'BashCommand')).toBe(true);
    expect(commands.items.map((item) => item.id)).toContain(commandId);
    // As in OpenHands, command_id__eq matches outputs only.
    expect((await search({ command_id__eq: commandId, kind__eq: 'BashCommand' })).items).toEqual(
      [],
    );
  });

  it('compares timestamp filters as instants, whatever the offset', async () => {
    const [event] = (await search({ command_id__eq: commandId, order__gt: 9, limit: 1 })).items;
    const instant = event?.timestamp as string; // …T10:00:00.123456Z
    // The same instant written at +02:00.
    const date = new Date(instant);
    const shifted = new Date(date.getTime() + 2 * 3600_000).toISOString().slice(0, 23);
    const withOffset = `${shifted}${instant.slice(23, 26)}+02:00`;
    const from = await search({ command_id__eq: commandId, timestamp__gte: withOffset, limit: 1 });
    expect(from.items[0]?.id).toBe(event?.id);
    const before = await search({
      command_id__eq: commandId,
      timestamp__lt: withOffset,
      sort_order: 'TIMESTAMP_DESC',
      limit: 1,
    });
    expect(before.items[0]?.order).toBe(9);
  });

  it.each([
    ['limit', '0'],
    ['limit', '101'],
    ['limit', 'ten'],
    ['kind__eq', 'BashError'],
    ['command_id__eq', 'not-a-uuid'],
    ['timestamp__gte', 'yesterday'],
    ['timestamp__lt', '2026-02-30T00:00:00Z'],
    ['order__gt', '1.5'],
    ['sort_order', 'NEWEST'],
    ['page_id', 'page-2'],
  ])('answers 422 naming %s for %s', async (field, value) => {
    const { status, json } = await call(
      'GET',
      `/api/bash/bash_events/search?${new URLSearchParams({ [field]: value })}`,
    );
    expect(status).toBe(422);
    const issues = json.detail as Json[];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue.loc).toEqual(['query', field]);
  });
});

describe('GET /api/bash/bash_events/{event_id}', () => {
  it('returns an event by hex or dashed id, 404 for an unknown one, 422 for a malformed one', async () => {
    const { json: command } = await call('POST', '/api/bash/start_bash_command', {
      command: 'true',
    });
    const id = command.id as string;
    expect((await call('GET', `/api/bash/bash_events/${id}`)).json).toEqual(command);
    const dashed = id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    expect((await call('GET', `/api/bash/bash_events/${dashed}`)).json).toEqual(command);
    const unknown = await call('GET', `/api/bash/bash_events/${'0'.repeat(32)}`);
    expect(unknown).toEqual({
      status: 404,
      json: { detail: `Bash event not found: ${'0'.repeat(32)}` },
    });
    const malformed = await call('GET', '/api/bash/bash_events/xyz');
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail).toEqual([expect.objectContaining({ loc: ['path', 'event_id'] })]);
  });
});

describe('GET /api/bash/bash_events/ (batch, JSON body on a GET)', () => {
  /** fetch refuses GET bodies, so this goes through node:http like the OpenHands client does. */
  function batchGet(body: string): Promise<{ status: number; json: unknown }> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        `${server.url}/api/bash/bash_events/`,
        {
          method: 'GET',
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              json: JSON.parse(Buffer.concat(chunks).toString()),
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  it('returns events in request order with null for unknown ids', async () => {
    const { json: command } = await call('POST', '/api/bash/start_bash_command', {
      command: 'true',
    });
    const unknown = '1'.repeat(32);
    const { status, json } = await batchGet(
      JSON.stringify([unknown, command.id, (command.id as string).toUpperCase()]),
    );
    expect(status).toBe(200);
    expect(json).toEqual([null, command, command]);
  });

  it('answers 422 naming the bad element, malformed JSON or a missing body', async () => {
    const bad = await batchGet(JSON.stringify(['0'.repeat(32), 'nope']));
    expect(bad.status).toBe(422);
    expect((bad.json as Json).detail).toEqual([expect.objectContaining({ loc: ['body', 1] })]);
    const malformed = await batchGet('[');
    expect(malformed.status).toBe(422);
    expect((malformed.json as Json).detail).toEqual([
      expect.objectContaining({ type: 'json_invalid' }),
    ]);
    const empty = await batchGet('');
    expect(empty.status).toBe(422);
    expect((empty.json as Json).detail).toEqual([
      expect.objectContaining({ type: 'missing', loc: ['body'] }),
    ]);
  });
});

describe('DELETE /api/bash/bash_events', () => {
  it('clears finished commands and keeps the events of running ones', async () => {
    const isolated = await startTestServer();
    try {
      await call('POST', '/api/bash/execute_bash_command', { command: 'echo done' }, isolated.url);
      const { json: running } = await call(
        'POST',
        '/api/bash/start_bash_command',
        { command: 'echo waiting; while [ ! -e go ]; do sleep 0.01; done' },
        isolated.url,
      );
      await vi.waitFor(async () => {
        expect((await searchIn(isolated.url, running.id as string)).length).toBeGreaterThan(0);
      }, WAIT);
      const cleared = await call('DELETE', '/api/bash/bash_events', undefined, isolated.url);
      // BashCommand + output + exit of the finished command.
      expect(cleared).toEqual({ status: 200, json: { cleared_count: 3 } });
      const { json: page } = await call(
        'GET',
        '/api/bash/bash_events/search',
        undefined,
        isolated.url,
      );
      expect(
        (page.items as Json[]).map(
          (item) => item.id === running.id || item.command_id === running.id,
        ),
      ).toEqual([true, true]);
      await writeFile(path.join(isolated.dir, 'go'), '');
    } finally {
      await isolated.close();
    }
  });
});

async function searchIn(base: string, commandId: string): Promise<Json[]> {
  const { json } = await call(
    'GET',
    `/api/bash/bash_events/search?command_id__eq=${commandId}`,
    undefined,
    base,
  );
  return json.items as Json[];
}

describe('bad input', () => {
  it.each([
    [{}, ['body', 'command'], 'missing'],
    [{ command: '' }, ['body', 'command'], 'string_too_short'],
    [{ command: 'true', timeout: 0 }, ['body', 'timeout'], 'greater_than'],
    [{ command: 'true', timeout: 'soon' }, ['body', 'timeout'], 'float_type'],
    [{ command: 'true', cwd: 7 }, ['body', 'cwd'], 'string_type'],
    [{ command: 'echo a\u0000b' }, ['body', 'command'], 'value_error'],
  ])('answers 422 for %j', async (body, loc, type) => {
    for (const route of ['start_bash_command', 'execute_bash_command']) {
      const { status, json } = await call('POST', `/api/bash/${route}`, body);
      expect(status).toBe(422);
      expect(json.detail).toEqual([expect.objectContaining({ loc, type })]);
    }
  });

  it('answers 422 for malformed JSON and 400 for a missing cwd, recording nothing', async () => {
    const before = (
      await search({ kind__eq: 'BashCommand', sort_order: 'TIMESTAMP_DESC', limit: 1 })
    ).items[0];
    const malformed = await call('POST', '/api/bash/start_bash_command', '{"command": ');
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail).toEqual([expect.objectContaining({ type: 'json_invalid' })]);
    const empty = await call('POST', '/api/bash/start_bash_command', '');
    expect(empty).toEqual({
      status: 422,
      json: { detail: [expect.objectContaining({ loc: ['body'] })] },
    });
    const missing = path.join(server.dir, 'no-such-dir');
    const noCwd = await call('POST', '/api/bash/execute_bash_command', {
      command: 'true',
      cwd: missing,
    });
    expect(noCwd).toEqual({ status: 400, json: { detail: `cwd does not exist: ${missing}` } });
    const after = (
      await search({ kind__eq: 'BashCommand', sort_order: 'TIMESTAMP_DESC', limit: 1 })
    ).items[0];
    expect(after?.id).toBe(before?.id);
    // The server is still serving.
    expect(
      (await call('POST', '/api/bash/execute_bash_command', { command: 'echo ok' })).json.stdout,
    ).toBe('ok\n');
  });

  it('confines cwd with confineToWorkingDir (403 naming cwd) and requires the session key', async () => {
    const confined = await startTestServer({ confineToWorkingDir: true, sessionApiKeys: ['k1'] });
    const headers = { 'content-type': 'application/json', 'x-session-api-key': 'k1' };
    try {
      const post = (body: unknown, extra: Record<string, string> = headers) =>
        fetch(`${confined.url}/api/bash/execute_bash_command`, {
          method: 'POST',
          headers: extra,
          body: JSON.stringify(body),
        });
      const outside = await post({ command: 'pwd', cwd: '/' });
      expect(outside.status).toBe(403);
      expect(((await outside.json()) as Json).detail).toMatch(
        /^cwd is outside the working directory/,
      );
      const parent = await post({ command: 'pwd', cwd: '../' });
      expect(parent.status).toBe(403);
      await mkdir(path.join(confined.dir, 'inside'));
      const inside = await post({ command: 'pwd -P', cwd: 'inside' });
      expect(((await inside.json()) as Json).stdout).toBe(`${path.join(confined.dir, 'inside')}\n`);
      const anonymous = await post({ command: 'true' }, { 'content-type': 'application/json' });
      expect(anonymous.status).toBe(401);
    } finally {
      await confined.close();
    }
  });
});
