import { appendFile, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { PathWalker } from '@agent-workspace/core/internal';
import { rejectionOf } from '@agent-workspace/core/testing';
import { MAX_COMMAND_BYTES } from '@agent-workspace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import type { BashCommandRequest } from './bash-command-types.js';
import { BASH_EVENT_LOG_FILE } from './bash-event-log.js';
import { BashEventService } from './bash-event-service.js';
import type { BashEventServiceOptions } from './bash-event-service-options.js';

type Json = Record<string, unknown>;

/** How long and how often `vi.waitFor` polls for the server to catch up. */
const WAIT = { timeout: 10_000, interval: 20 };

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
    await vi.waitFor(async () => {
      const events = await allEvents(first.url);
      expect(events.some((event) => event.command_id === running.id)).toBe(true);
    }, WAIT);
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
      await vi.waitFor(() => expect(warnings.length).toBeGreaterThan(0), WAIT);
      expect(warnings[0]).toContain('skipped 1 unreadable logged events');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('appends to the log as events happen, without waiting for close()', async () => {
    const server = await serve();
    const result = await post(server.url, 'execute_bash_command', { command: 'echo logged' });
    const logged = await vi.waitFor(async () => {
      const text = await readFile(path.join(stateDir, BASH_EVENT_LOG_FILE), 'utf8');
      expect(text).toContain(result.id as string);
      return text;
    }, WAIT);
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
    await vi.waitFor(async () => expect(await allEvents(server.url)).toEqual([]), WAIT);
    const gone = await fetch(`${server.url}/api/bash/bash_events/${result.id}`);
    expect(gone.status).toBe(404);
  });
});

describe('BashEventService', () => {
  let workingDir: string;
  let paths: PathWalker;
  beforeEach(async () => {
    workingDir = await realpath(await mkdtemp(path.join(tmpdir(), 'bash-service-')));
    paths = PathWalker.open({ workingDir, confine: false });
  });
  afterEach(async () => {
    paths.close();
    await rm(workingDir, { recursive: true, force: true });
  });

  function service(options: Partial<BashEventServiceOptions> = {}): BashEventService {
    return new BashEventService({
      paths,
      retentionSeconds: 3600,
      maxBytes: 1024 * 1024,
      maxCommandBytes: 1024 * 1024,
      maxConcurrentCommands: 100,
      orphanGraceMs: 60_000,
      ...options,
    });
  }

  it('close() kills commands that ignore SIGTERM, records their end and is idempotent', async () => {
    const bash = service();
    await bash.start();
    const started = await bash.startCommand({
      command: "trap '' TERM; echo ready; sleep 30",
      timeoutSeconds: 60,
      detached: true,
    });
    await vi.waitFor(
      () => expect(bash.commandRecord(started.event.id)?.outputs.length).toBeTruthy(),
      WAIT,
    );
    const first = bash.close();
    expect(bash.close()).toBe(first);
    await first;
    const { final } = await started.completion;
    expect(final.exit_code).toBe(137);
    expect(bash.commandRecord(started.event.id)?.exit).toMatchObject({ exitCode: 137 });
    await expect(
      bash.startCommand({ command: 'true', timeoutSeconds: 1, detached: true }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_CLOSED' });
  });

  it('refuses bad input, a missing cwd and too many commands without recording anything', async () => {
    const bash = service({ maxConcurrentCommands: 2 });
    await bash.start();
    try {
      const attempt = (request: Partial<BashCommandRequest>) =>
        rejectionOf(
          bash.startCommand({ command: 'true', timeoutSeconds: 5, detached: true, ...request }),
        );
      const badEnv = await attempt({ env: { 'A=B': 'x' } });
      expect(WorkspaceError.isInstance(badEnv, 'INVALID_ARGUMENT')).toBe(true);
      expect((badEnv as WorkspaceError).details).toEqual({ field: 'env.A=B' });
      const long = await attempt({ command: 'x'.repeat(MAX_COMMAND_BYTES + 1) });
      expect((long as WorkspaceError).details).toEqual({ field: 'command' });
      const badCwd = await attempt({ cwd: `${workingDir}/nope` });
      expect(WorkspaceError.isInstance(badCwd, 'NOT_FOUND')).toBe(true);
      expect((badCwd as WorkspaceError).details).toMatchObject({ field: 'cwd' });
      expect(bash.lastSeq).toBe(0);
      const running = await Promise.all(
        [1, 2].map(() =>
          bash.startCommand({ command: 'sleep 30', timeoutSeconds: 60, detached: true }),
        ),
      );
      const busy = await attempt({});
      expect(WorkspaceError.isInstance(busy, 'RESOURCE_EXHAUSTED')).toBe(true);
      for (const started of running) bash.running(started.event.id)?.handle.signal('SIGKILL');
      await Promise.all(running.map((started) => started.completion));
      expect(
        (await bash.startCommand({ command: 'true', timeoutSeconds: 5, detached: true })).pid,
      ).toBeGreaterThan(0);
    } finally {
      await bash.close();
    }
  });

  it('ends a command once its last follower left and the grace passed, unless detached', async () => {
    const bash = service({ orphanGraceMs: 200 });
    await bash.start();
    try {
      const held = await bash.startCommand({
        command: 'sleep 30',
        timeoutSeconds: 60,
        detached: false,
      });
      const detached = await bash.startCommand({
        command: 'sleep 30',
        timeoutSeconds: 60,
        detached: true,
      });
      const reattached = await bash.startCommand({
        command: 'sleep 30',
        timeoutSeconds: 60,
        detached: false,
      });
      const follower = bash.follow(reattached.event.id);
      held.release();
      reattached.release();
      const { final, result } = await held.completion;
      expect(final.exit_code).toBe(143);
      expect(result.timeoutOccurred).toBe(false);
      const notes = bash.commandRecord(held.event.id)?.outputs.map((stored) => stored.event);
      expect(notes).toContainEqual(
        expect.objectContaining({ stderr: expect.stringContaining('its client went away') }),
      );
      // Both others outlived the grace: one is detached, one has a follower.
      expect(bash.running(detached.event.id)).toBeDefined();
      expect(bash.running(reattached.event.id)).toBeDefined();
      follower();
      expect((await reattached.completion).final.exit_code).toBe(143);
      expect(bash.running(detached.event.id)).toBeDefined();
    } finally {
      await bash.close();
    }
  });

  it('keeps publishing to other listeners when one throws', async () => {
    const errors: unknown[] = [];
    const bash = service({ onError: (error) => errors.push(error) });
    await bash.start();
    const seen: string[] = [];
    bash.subscribe(() => {
      throw new Error('listener failed');
    });
    const unsubscribe = bash.subscribe((stored) => seen.push(stored.event.kind));
    try {
      const { completion } = await bash.startCommand({
        command: 'echo hi',
        timeoutSeconds: 5,
        detached: true,
      });
      await completion;
      expect(seen).toEqual(['BashCommand', 'BashOutput', 'BashOutput']);
      expect(errors).toHaveLength(3);
      unsubscribe();
      await (await bash.startCommand({ command: 'true', timeoutSeconds: 5, detached: true }))
        .completion;
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
