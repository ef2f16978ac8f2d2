import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { type FileWatchEvent, fileWatchOf, RemoteWorkspace } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const API_KEY = 'watch-session-key';
const WAIT_MS = 10_000;

/** The next event of `events` matching `until`; fails after `WAIT_MS` or at the end. */
async function eventMatching(
  events: AsyncIterator<FileWatchEvent>,
  until: (event: FileWatchEvent) => boolean,
): Promise<FileWatchEvent> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no matching event in time')), WAIT_MS);
  });
  try {
    for (;;) {
      const next = await Promise.race([events.next(), timeout]);
      if (next.done) throw new Error('the watcher ended');
      if (until(next.value)) return next.value;
    }
  } finally {
    clearTimeout(timer);
  }
}

describe('RemoteWorkspace.watch over /sockets/watch', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;
  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [API_KEY], confineToWorkingDir: true });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
    await workspace.prepare();
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
  });

  it('declares fileWatch once the server announced it, and sees what the agent writes', async () => {
    expect(fileWatchOf(workspace)).toBe(workspace);
    await mkdir(path.join(server.dir, 'watched'));
    await using watcher = await workspace.watch('watched', { recursive: true });
    const events = watcher[Symbol.asyncIterator]();
    await workspace.executeCommand('mkdir -p watched/a && echo hi > watched/a/b.txt');
    expect(await eventMatching(events, (event) => event.path === 'a/b.txt')).toEqual({
      type: 'create',
      path: 'a/b.txt',
      isDirectory: false,
    });
  });

  it('rejects what the server refuses, naming the field', async () => {
    const missing = await expectRejection(workspace.watch('missing'), 'NOT_FOUND');
    expect(missing.details).toMatchObject({ field: 'path' });
    await symlink('/etc', path.join(server.dir, 'out'));
    await expectRejection(workspace.watch('out'), 'FORBIDDEN');
    await expectRejection(workspace.watch('/etc'), 'FORBIDDEN');
    const queue = await expectRejection(
      workspace.watch('.', { maxQueuedEvents: 0 }),
      'INVALID_ARGUMENT',
    );
    expect(queue.details).toMatchObject({ field: 'maxQueuedEvents' });
  });

  it('ends the iteration on abort and when the workspace closes', async () => {
    const own = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
    const controller = new AbortController();
    const aborted = (await own.watch('.', { signal: controller.signal }))[Symbol.asyncIterator]();
    const closed = (await own.watch('.'))[Symbol.asyncIterator]();
    const pending = [aborted.next(), closed.next()];
    controller.abort();
    await own.close();
    expect(await Promise.all(pending)).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
  });

  it('a watch aborted or closed while it starts rejects with ABORTED or WORKSPACE_CLOSED', async () => {
    const own = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
    const controller = new AbortController();
    const aborted = own.watch('.', { signal: controller.signal });
    controller.abort();
    await expectRejection(aborted, 'ABORTED');
    // The expectation is attached before close() rejects the start: never an unhandled rejection.
    const closing = expectRejection(own.watch('.'), 'WORKSPACE_CLOSED');
    await own.close();
    await closing;
  });

  it('an OpenHands server (no extensions) does not declare it and refuses NOT_SUPPORTED', async () => {
    await using plain = await startTestServer({ extensions: false });
    await using remote = new RemoteWorkspace({ host: plain.url, workingDir: plain.dir });
    await remote.prepare();
    expect(fileWatchOf(remote)).toBeUndefined();
    await expectRejection(remote.watch('.'), 'NOT_SUPPORTED');
  });
});
