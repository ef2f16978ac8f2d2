import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { FileWatchEvent } from './file-watch.js';
import { FileWatchQueue } from './file-watch-queue.js';

/** Everything the queue yields until it ends. */
async function drain(queue: FileWatchQueue): Promise<FileWatchEvent[]> {
  const events: FileWatchEvent[] = [];
  for await (const event of queue) events.push(event);
  return events;
}

describe('FileWatchQueue', () => {
  it('yields events in order and ends after the queued ones', async () => {
    const queue = new FileWatchQueue(10, () => {});
    queue.push({ type: 'create', path: 'a', isDirectory: false });
    queue.push({ type: 'remove', path: 'b' });
    queue.end();
    queue.push({ type: 'create', path: 'late' });
    expect(await drain(queue)).toEqual([
      { type: 'create', path: 'a', isDirectory: false },
      { type: 'remove', path: 'b' },
    ]);
  });

  it('merges events of a queued path: the latest wins, a write after a create stays a create', async () => {
    const queue = new FileWatchQueue(10, () => {});
    queue.push({ type: 'create', path: 'a', isDirectory: false });
    queue.push({ type: 'write', path: 'a', isDirectory: false });
    queue.push({ type: 'write', path: 'b', isDirectory: false });
    queue.push({ type: 'remove', path: 'b' });
    queue.end();
    expect(await drain(queue)).toEqual([
      { type: 'create', path: 'a', isDirectory: false },
      { type: 'remove', path: 'b' },
    ]);
  });

  it('past the limit drops new paths, yields one overflow after the queued ones, then resumes', async () => {
    const queue = new FileWatchQueue(2, () => {});
    for (const name of ['a', 'b', 'c', 'd']) queue.push({ type: 'create', path: name });
    queue.push({ type: 'write', path: 'a' }); // dropped too while overflowed
    const iterator = queue[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: 'create', path: 'a' });
    expect((await iterator.next()).value).toEqual({ type: 'create', path: 'b' });
    expect((await iterator.next()).value).toEqual({ type: 'overflow', path: '' });
    queue.push({ type: 'create', path: 'e' });
    expect((await iterator.next()).value).toEqual({ type: 'create', path: 'e' });
  });

  it('wakes a waiting consumer, and throws the error it ended with', async () => {
    const queue = new FileWatchQueue(10, () => {});
    const iterator = queue[Symbol.asyncIterator]();
    const waiting = iterator.next();
    queue.push({ type: 'create', path: 'a' });
    expect(await waiting).toEqual({ done: false, value: { type: 'create', path: 'a' } });
    const failing = iterator.next();
    queue.end(new WorkspaceError({ code: 'NOT_FOUND', message: 'gone' }));
    await expect(failing).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('close() ends a waiting consumer, drops what is queued and stops once', async () => {
    let stops = 0;
    const queue = new FileWatchQueue(10, () => {
      stops += 1;
    });
    const iterator = queue[Symbol.asyncIterator]();
    const waiting = iterator.next();
    await queue.close();
    expect(await waiting).toEqual({ done: true, value: undefined });
    queue.push({ type: 'create', path: 'a' });
    await queue.close();
    expect(await drain(queue)).toEqual([]);
    expect(stops).toBe(1);
  });

  it('leaving a for-await early closes it', async () => {
    let stops = 0;
    const queue = new FileWatchQueue(10, () => {
      stops += 1;
    });
    queue.push({ type: 'create', path: 'a' });
    queue.push({ type: 'create', path: 'b' });
    for await (const event of queue) {
      expect(event.path).toBe('a');
      break;
    }
    expect(stops).toBe(1);
  });
});
