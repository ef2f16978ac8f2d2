import { afterEach, describe, expect, it, vi } from 'vitest';
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
    const queue = new FileWatchQueue({ maxQueuedEvents: 10, stop: () => {} });
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
    const queue = new FileWatchQueue({ maxQueuedEvents: 10, stop: () => {} });
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
    const queue = new FileWatchQueue({ maxQueuedEvents: 2, stop: () => {} });
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
    const queue = new FileWatchQueue({ maxQueuedEvents: 10, stop: () => {} });
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
    const queue = new FileWatchQueue({
      maxQueuedEvents: 10,
      stop: () => {
        stops += 1;
      },
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
    const queue = new FileWatchQueue({
      maxQueuedEvents: 10,
      stop: () => {
        stops += 1;
      },
    });
    queue.push({ type: 'create', path: 'a' });
    queue.push({ type: 'create', path: 'b' });
    for await (const event of queue) {
      expect(event.path).toBe('a');
      break;
    }
    expect(stops).toBe(1);
  });

  describe('maxEventsPerSecond', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** Whether `promise` has settled once pending callbacks ran (timers do not advance). */
    const settled = async (promise: Promise<unknown>) => {
      let done = false;
      void promise.then(
        () => (done = true),
        () => (done = true),
      );
      await vi.advanceTimersByTimeAsync(0);
      return done;
    };

    it('hands out a burst as deep as the rate, then one event per 1/rate seconds', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const queue = new FileWatchQueue({
        maxQueuedEvents: 100,
        maxEventsPerSecond: 4,
        stop: () => {},
      });
      for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) queue.push({ type: 'create', path: name });
      const iterator = queue[Symbol.asyncIterator]();
      for (const name of ['a', 'b', 'c', 'd']) {
        expect((await iterator.next()).value).toEqual({ type: 'create', path: name });
      }
      const fifth = iterator.next();
      expect(await settled(fifth)).toBe(false);
      await vi.advanceTimersByTimeAsync(249);
      expect(await settled(fifth)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await fifth).value).toEqual({ type: 'create', path: 'e' });
      const sixth = iterator.next();
      await vi.advanceTimersByTimeAsync(250);
      expect((await sixth).value).toEqual({ type: 'create', path: 'f' });
    });

    it('merges and overflows while the consumer is held back, and close() ends the wait', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const queue = new FileWatchQueue({
        maxQueuedEvents: 2,
        maxEventsPerSecond: 1,
        stop: () => {},
      });
      queue.push({ type: 'create', path: 'a' });
      const iterator = queue[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toEqual({ type: 'create', path: 'a' });
      const held = iterator.next();
      queue.push({ type: 'create', path: 'b' });
      queue.push({ type: 'write', path: 'b' });
      queue.push({ type: 'create', path: 'c' });
      queue.push({ type: 'create', path: 'd' });
      expect(await settled(held)).toBe(false);
      await vi.advanceTimersByTimeAsync(1000);
      expect((await held).value).toEqual({ type: 'create', path: 'b' });
      for (const expected of [
        { type: 'create', path: 'c' },
        { type: 'overflow', path: '' },
      ]) {
        const next = iterator.next();
        await vi.advanceTimersByTimeAsync(1000);
        expect((await next).value).toEqual(expected);
      }
      const waiting = iterator.next();
      expect(await settled(waiting)).toBe(false);
      await queue.close();
      expect(await waiting).toEqual({ done: true, value: undefined });
    });
  });
});
