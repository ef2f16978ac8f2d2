import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRejection } from '../testing/rejection-of.js';
import { type FileWatchEvent, type FileWatcher, fileWatchOf } from '../workspace/file-watch.js';
import { LocalWorkspace } from './local-workspace.js';

const WAIT_MS = 10_000;

/**
 * Reads `watcher` until `until` holds for an event (returned with those before it); fails after
 * `WAIT_MS` without one.
 */
async function eventsUntil(
  iterator: AsyncIterator<FileWatchEvent>,
  until: (event: FileWatchEvent) => boolean,
): Promise<FileWatchEvent[]> {
  const seen: FileWatchEvent[] = [];
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no matching event; saw ${JSON.stringify(seen)}`)),
        Math.max(0, deadline - Date.now()),
      );
    });
    const next = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (next.done) throw new Error(`watcher ended; saw ${JSON.stringify(seen)}`);
    seen.push(next.value);
    if (until(next.value)) return seen;
  }
}

const is =
  (type: FileWatchEvent['type'], eventPath: string) =>
  (event: FileWatchEvent): boolean =>
    event.type === type && event.path === eventPath;

describe('LocalWorkspace.watch', () => {
  let root: string;
  let dir: string;
  let outside: string;
  let workspace: LocalWorkspace;
  const watchers: FileWatcher[] = [];

  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'file-watch-')));
    dir = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    await mkdir(dir);
    await mkdir(outside);
    workspace = new LocalWorkspace({ workingDir: dir, maxFileWatchers: 3 });
  });
  afterEach(async () => {
    await Promise.all(watchers.splice(0).map((watcher) => watcher.close()));
    await workspace.close();
    await rm(root, { recursive: true, force: true });
  });

  const open = async (
    target: string,
    options?: Parameters<LocalWorkspace['watch']>[1],
  ): Promise<AsyncIterator<FileWatchEvent>> => {
    const watcher = await workspace.watch(target, options);
    watchers.push(watcher);
    return watcher[Symbol.asyncIterator]();
  };

  it('declares fileWatch and is reachable through fileWatchOf', () => {
    expect(workspace.capabilities.fileWatch).toBe(true);
    expect(fileWatchOf(workspace)).toBe(workspace);
  });

  it('sees a file created, written, renamed and removed, paths relative to the directory', async () => {
    const events = await open('.');
    await writeFile(path.join(dir, 'a.txt'), 'one');
    expect(await eventsUntil(events, is('create', 'a.txt'))).toContainEqual({
      type: 'create',
      path: 'a.txt',
      isDirectory: false,
    });
    await writeFile(path.join(dir, 'a.txt'), 'two', { flag: 'a' });
    await eventsUntil(events, is('write', 'a.txt'));
    await rename(path.join(dir, 'a.txt'), path.join(dir, 'b.txt'));
    const renamed = await eventsUntil(events, is('create', 'b.txt'));
    expect(renamed).toContainEqual({ type: 'remove', path: 'a.txt' });
    await rm(path.join(dir, 'b.txt'));
    await eventsUntil(events, is('remove', 'b.txt'));
  });

  it('sees a file the agent writes through executeCommand and fileUpload', async () => {
    const events = await open(dir);
    await workspace.executeCommand('echo hi > from-command.txt');
    await eventsUntil(events, is('create', 'from-command.txt'));
    const source = path.join(outside, 'src.txt');
    await writeFile(source, 'x');
    await workspace.fileUpload(source, 'uploaded.txt');
    await eventsUntil(events, (event) => event.path === 'uploaded.txt' && event.type !== 'remove');
  });

  it('recursive: sees files in new nested directories; without it, only the top level', async () => {
    await mkdir(path.join(dir, 'old'));
    const flat = await open('.');
    const deep = await open('.', { recursive: true });
    await workspace.executeCommand(
      'mkdir -p new/deeper && echo x > new/deeper/f.txt && echo y > old/g.txt',
    );
    await eventsUntil(deep, is('create', 'new/deeper/f.txt'));
    await eventsUntil(deep, (event) => event.path === 'old/g.txt');
    await writeFile(path.join(dir, 'marker'), '');
    const top = await eventsUntil(flat, is('create', 'marker'));
    expect(top.filter((event) => event.path.includes('/'))).toEqual([]);
  });

  it('never follows a link out, and refuses a watched directory outside workingDir', async () => {
    await symlink(outside, path.join(dir, 'link'));
    const forbidden = await expectRejection(workspace.watch('link'), 'FORBIDDEN');
    expect(forbidden.details).toMatchObject({ field: 'path' });
    await expectRejection(workspace.watch('..'), 'FORBIDDEN');
    await expectRejection(workspace.watch(outside), 'FORBIDDEN');

    const events = await open('.', { recursive: true });
    await writeFile(path.join(outside, 'secret.txt'), 'no');
    await writeFile(path.join(dir, 'marker'), '');
    const seen = await eventsUntil(events, is('create', 'marker'));
    expect(seen.filter((event) => event.path.startsWith('link/'))).toEqual([]);
  });

  it('stops reporting a directory moved out of the tree or swapped for a link out', async () => {
    await mkdir(path.join(dir, 'moved/deep'), { recursive: true });
    await mkdir(path.join(dir, 'swapped'));
    const events = await open('.', { recursive: true });
    await rename(path.join(dir, 'moved'), path.join(outside, 'moved'));
    await rename(path.join(dir, 'swapped'), path.join(outside, 'swapped'));
    await symlink(outside, path.join(dir, 'swapped'));
    await writeFile(path.join(outside, 'moved/deep/leak.txt'), '');
    await writeFile(path.join(outside, 'swapped/leak.txt'), '');
    await writeFile(path.join(outside, 'leak.txt'), '');
    await writeFile(path.join(dir, 'marker'), '');
    const seen = await eventsUntil(events, is('create', 'marker'));
    expect(seen).toContainEqual({ type: 'remove', path: 'moved', isDirectory: true });
    expect(seen.filter((event) => event.path.includes('leak'))).toEqual([]);
  });

  it('refuses bad input naming the field', async () => {
    expect((await expectRejection(workspace.watch(''), 'INVALID_ARGUMENT')).details).toMatchObject({
      field: 'path',
    });
    await expectRejection(workspace.watch('missing'), 'NOT_FOUND');
    await writeFile(path.join(dir, 'file'), '');
    const notDirectory = await expectRejection(workspace.watch('file'), 'INVALID_ARGUMENT');
    expect(notDirectory.details).toMatchObject({ field: 'path' });
    const recursive = await expectRejection(
      workspace.watch('.', { recursive: 'yes' as unknown as boolean }),
      'INVALID_ARGUMENT',
    );
    expect(recursive.details).toMatchObject({ field: 'recursive' });
    for (const maxQueuedEvents of [0, 1.5, 70_000]) {
      const error = await expectRejection(
        workspace.watch('.', { maxQueuedEvents }),
        'INVALID_ARGUMENT',
      );
      expect(error.details).toMatchObject({ field: 'maxQueuedEvents' });
    }
    for (const maxEventsPerSecond of [0, 2.5, 200_000]) {
      const error = await expectRejection(
        workspace.watch('.', { maxEventsPerSecond }),
        'INVALID_ARGUMENT',
      );
      expect(error.details).toMatchObject({ field: 'maxEventsPerSecond' });
    }
    await expectRejection(workspace.watch('.', { signal: AbortSignal.abort() }), 'ABORTED');
    expect(() => new LocalWorkspace({ maxFileWatchers: 0 })).toThrow(/maxFileWatchers/);
  });

  it('past the queue limit yields one overflow, then resumes', async () => {
    const events = await open('.', { maxQueuedEvents: 2 });
    let seen: FileWatchEvent[] = [];
    for (
      let round = 0;
      round < 50 && !seen.some((event) => event.type === 'overflow');
      round += 1
    ) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => writeFile(path.join(dir, `f-${round}-${i}`), '')),
      );
      seen = seen.concat(await eventsUntil(events, () => true));
    }
    expect(seen).toContainEqual({ type: 'overflow', path: '' });
    // Take what was queued after the overflow, then a new file is seen again.
    await writeFile(path.join(dir, 'after-overflow'), '');
    await eventsUntil(events, is('create', 'after-overflow'));
  });

  it('limits watchers per workspace and frees a slot on close', async () => {
    const first = await workspace.watch('.');
    await workspace.watch('.').then((watcher) => watchers.push(watcher));
    await workspace.watch('.').then((watcher) => watchers.push(watcher));
    const error = await expectRejection(workspace.watch('.'), 'RESOURCE_EXHAUSTED');
    expect(error.details).toMatchObject({ field: 'maxFileWatchers', limit: 3 });
    await first.close();
    watchers.push(await workspace.watch('.'));
  });

  it('aborting the signal, closing the watcher or the workspace ends iteration', async () => {
    const controller = new AbortController();
    const aborted = (await workspace.watch('.', { signal: controller.signal }))[
      Symbol.asyncIterator
    ]();
    const watcher = await workspace.watch('.');
    const closed = watcher[Symbol.asyncIterator]();
    const ended = (await workspace.watch('.'))[Symbol.asyncIterator]();
    const pending = [aborted.next(), closed.next(), ended.next()];
    controller.abort();
    await watcher.close();
    await workspace.close();
    expect(await Promise.all(pending)).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    await expectRejection(workspace.watch('.'), 'WORKSPACE_CLOSED');
  });

  it('ends with NOT_FOUND when the watched directory is removed', async () => {
    await mkdir(path.join(dir, 'doomed'));
    const events = await open('doomed');
    await rm(path.join(dir, 'doomed'), { recursive: true });
    await expect(eventsUntil(events, () => false)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
