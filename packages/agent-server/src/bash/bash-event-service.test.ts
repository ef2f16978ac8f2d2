import { appendFile, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/eventually.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';
import { BASH_EVENT_LOG_FILE } from './bash-event-log.js';
import { BashEventService } from './bash-event-service.js';

type Json = Record<string, unknown>;

async function post(base: string, route: string, body: unknown): Promise<Json> {
  const response = await fetch(`${base}/api/bash/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Json;
}

/** Every event, oldest first, following `next_page_id`. */
async function allEvents(base: string): Promise<Json[]> {
  const items: Json[] = [];
  let pageId: string | null = null;
  do {
    const query: string = pageId === null ? '' : `?page_id=${pageId}`;
    const page = (await (await fetch(`${base}/api/bash/bash_events/search${query}`)).json()) as {
      items: Json[];
      next_page_id: string | null;
    };
    items.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId !== null);
  return items;
}

let stateDir: string;
const servers: TestServer[] = [];
beforeEach(async () => {
  stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'bash-state-')));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(stateDir, { recursive: true, force: true });
});

async function serve(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer({ stateDir, ...options });
  servers.push(server);
  return server;
}

describe('persistence', () => {
  it('answers searches about earlier commands after a restart; a command running at close() ends with a final event', async () => {
    const first = await serve();
    const done = await post(first.url, 'execute_bash_command', { command: 'echo persisted' });
    const running = await post(first.url, 'start_bash_command', {
      command: 'echo running; sleep 30',
    });
    await eventually(async () =>
      (await allEvents(first.url)).some((event) => event.command_id === running.id)
        ? true
        : undefined,
    );
    const before = await allEvents(first.url);
    await first.server.close();

    const second = await serve();
    const after = await allEvents(second.url);
    expect(after.slice(0, before.length)).toEqual(before);
    // The running command was stopped by close() (SIGTERM → 128 + 15) and recorded as such.
    expect(after.slice(before.length)).toEqual([
      expect.objectContaining({ command_id: running.id, exit_code: 143, stdout: null }),
    ]);
    const byId = await fetch(`${second.url}/api/bash/bash_events/${done.id}`);
    expect(await byId.json()).toEqual({ ...done, stdout: null, stderr: null });
    // The log was compacted to one line per live event.
    const lines = (await readFile(path.join(stateDir, BASH_EVENT_LOG_FILE), 'utf8'))
      .trim()
      .split('\n');
    expect(lines).toHaveLength(after.length);
    // New events sort after the reloaded ones.
    await post(second.url, 'execute_bash_command', { command: 'true' });
    const latest = await allEvents(second.url);
    expect(latest.slice(0, after.length)).toEqual(after);
    expect(latest.length).toBe(after.length + 2);
  });

  it('keeps cleared history cleared across a restart', async () => {
    const first = await serve();
    await post(first.url, 'execute_bash_command', { command: 'echo gone' });
    const response = await fetch(`${first.url}/api/bash/bash_events`, { method: 'DELETE' });
    expect(await response.json()).toEqual({ cleared_count: 3 });
    await first.server.close();
    const second = await serve();
    expect(await allEvents(second.url)).toEqual([]);
  });

  it('skips a torn line and finishes commands that were running when the server died', async () => {
    const commandId = 'a'.repeat(32);
    const lines = [
      {
        event: {
          kind: 'BashCommand',
          id: commandId,
          timestamp: '2026-01-01T00:00:00.000001Z',
          command: 'sleep 100',
          cwd: null,
          timeout: 300,
        },
      },
      {
        event: {
          kind: 'BashOutput',
          id: 'b'.repeat(32),
          timestamp: '2026-01-01T00:00:01.000001+00:00',
          command_id: commandId,
          order: 0,
          exit_code: null,
          stdout: 'partial\n',
          stderr: null,
        },
      },
    ];
    await writeFile(
      path.join(stateDir, BASH_EVENT_LOG_FILE),
      `${lines.map((line) => JSON.stringify(line)).join('\n')}\n{"event":{"kind":"BashOut`,
    );
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const server = await serve({ bashEventRetentionSeconds: 10 * 365 * 24 * 3600 });
      const events = await allEvents(server.url);
      expect(
        events.map(({ order, stdout, stderr, exit_code }) => ({
          order,
          stdout,
          stderr,
          exit_code,
        })),
      ).toEqual([
        { order: undefined, stdout: undefined, stderr: undefined, exit_code: undefined },
        { order: 0, stdout: 'partial\n', stderr: null, exit_code: null },
        {
          order: 1,
          stdout: null,
          stderr: 'agent-server stopped before the command finished',
          exit_code: null,
        },
        { order: 2, stdout: null, stderr: null, exit_code: -1 },
      ]);
      // Timestamps are served in canonical form.
      expect(events[1]?.timestamp).toBe('2026-01-01T00:00:01.000001Z');
      await eventually(async () => (warnings.length > 0 ? true : undefined));
      expect(warnings[0]).toContain('skipped 1 unreadable logged events');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('appends to the log as events happen, without waiting for close()', async () => {
    const server = await serve();
    const result = await post(server.url, 'execute_bash_command', { command: 'echo logged' });
    const logged = await eventually(async () => {
      const text = await readFile(path.join(stateDir, BASH_EVENT_LOG_FILE), 'utf8');
      return text.includes(result.id as string) ? text : undefined;
    });
    const parsed = logged
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: Json; exit?: Json });
    expect(parsed.at(-1)).toEqual({
      event: { ...result, stdout: null, stderr: null },
      exit: { timeout_occurred: false, duration_ms: expect.any(Number) },
    });
  });
});

describe('retention', () => {
  it('purges events older than bashEventRetentionSeconds', async () => {
    const server = await serve({ bashEventRetentionSeconds: 0.3 });
    const result = await post(server.url, 'execute_bash_command', { command: 'echo short-lived' });
    expect((await allEvents(server.url)).length).toBeGreaterThan(0);
    await eventually(async () => ((await allEvents(server.url)).length === 0 ? true : undefined));
    const gone = await fetch(`${server.url}/api/bash/bash_events/${result.id}`);
    expect(gone.status).toBe(404);
  });
});

describe('BashEventService', () => {
  let workingDir: string;
  beforeEach(async () => {
    workingDir = await realpath(await mkdtemp(path.join(tmpdir(), 'bash-service-')));
  });
  afterEach(async () => {
    await rm(workingDir, { recursive: true, force: true });
  });

  function service(): BashEventService {
    return new BashEventService({ workingDir, retentionSeconds: 3600, maxBytes: 1024 * 1024 });
  }

  it('close() kills commands that ignore SIGTERM, records their end and is idempotent', async () => {
    const bash = service();
    await bash.start();
    const started = bash.startCommand({
      command: "trap '' TERM; echo ready; sleep 30",
      timeoutSeconds: 60,
    });
    await eventually(async () =>
      bash.commandRecord(started.event.id)?.outputs.length ? true : undefined,
    );
    const first = bash.close();
    expect(bash.close()).toBe(first);
    await first;
    const { final } = await started.completion;
    expect(final.exit_code).toBe(137);
    expect(bash.commandRecord(started.event.id)?.exit).toMatchObject({ exitCode: 137 });
    expect(() => bash.startCommand({ command: 'true', timeoutSeconds: 1 })).toThrowError(
      expect.objectContaining({ code: 'WORKSPACE_CLOSED' }),
    );
  });

  it('records a spawn failure as a stderr event and exit -1', async () => {
    const bash = service();
    await bash.start();
    try {
      // One argument over the kernel's 128 KiB limit: bash cannot be executed (E2BIG).
      const started = bash.startCommand({
        command: `echo ${'x'.repeat(200_000)}`,
        timeoutSeconds: 5,
        captureOutput: true,
      });
      expect(started.pid).toBeUndefined();
      const { final, result } = await started.completion;
      expect(result).toMatchObject({ exitCode: -1, stdout: '', timeoutOccurred: false });
      expect(result.stderr).toMatch(/^Error executing command: .*E2BIG/);
      const outputs = bash.commandRecord(started.event.id)?.outputs.map((stored) => stored.event);
      expect(outputs).toEqual([
        expect.objectContaining({ order: 0, stdout: null, stderr: result.stderr, exit_code: null }),
        { ...final, order: 1, exit_code: -1, stdout: null, stderr: null },
      ]);
    } finally {
      await bash.close();
    }
  });

  it('refuses invalid env names and a missing cwd without recording anything', async () => {
    const bash = service();
    await bash.start();
    try {
      const attempt = (request: Parameters<BashEventService['startCommand']>[0]): unknown => {
        try {
          bash.startCommand(request);
        } catch (error) {
          return error;
        }
        return undefined;
      };
      const badEnv = attempt({ command: 'true', timeoutSeconds: 5, env: { 'A=B': 'x' } });
      expect(WorkspaceError.isInstance(badEnv, 'INVALID_ARGUMENT')).toBe(true);
      expect((badEnv as WorkspaceError).details).toEqual({ field: 'env.A=B' });
      const badCwd = attempt({ command: 'true', timeoutSeconds: 5, cwd: `${workingDir}/nope` });
      expect(WorkspaceError.isInstance(badCwd, 'INVALID_CWD')).toBe(true);
      expect(bash.lastSeq).toBe(0);
    } finally {
      await bash.close();
    }
  });

  it('keeps publishing to other listeners when one throws', async () => {
    const errors: unknown[] = [];
    const bash = new BashEventService({
      workingDir,
      retentionSeconds: 3600,
      maxBytes: 1024 * 1024,
      onError: (error) => errors.push(error),
    });
    await bash.start();
    const seen: string[] = [];
    bash.subscribe(() => {
      throw new Error('listener failed');
    });
    const unsubscribe = bash.subscribe((stored) => seen.push(stored.event.kind));
    try {
      const { completion } = bash.startCommand({ command: 'echo hi', timeoutSeconds: 5 });
      await completion;
      expect(seen).toEqual(['BashCommand', 'BashOutput', 'BashOutput']);
      expect(errors).toHaveLength(3);
      unsubscribe();
      await bash.startCommand({ command: 'true', timeoutSeconds: 5 }).completion;
      expect(seen).toHaveLength(3);
    } finally {
      await bash.close();
    }
  });
});

describe('log writes', () => {
  it('keeps the log readable while many events are appended concurrently', async () => {
    const server = await serve();
    await Promise.all(
      Array.from({ length: 20 }, (_unused, index) =>
        post(server.url, 'execute_bash_command', { command: `echo line-${index}` }),
      ),
    );
    const events = await allEvents(server.url);
    await server.server.close();
    const lines = (await readFile(path.join(stateDir, BASH_EVENT_LOG_FILE), 'utf8'))
      .trim()
      .split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { event: Json }).event)).toEqual(events);
    await appendFile(path.join(stateDir, BASH_EVENT_LOG_FILE), '\n\n');
    const again = await serve();
    expect(await allEvents(again.url)).toEqual(events);
  });
});
