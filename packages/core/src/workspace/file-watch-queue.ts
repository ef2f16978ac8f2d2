import type { FileWatchEvent, FileWatcher } from './file-watch.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

interface Waiter {
  resolve(result: IteratorResult<FileWatchEvent>): void;
  reject(error: unknown): void;
}

/**
 * The bounded queue behind every {@link FileWatcher}: a producer `push`es events and `end`s it,
 * one consumer iterates. At most `maxQueuedEvents` paths wait; events for a queued path are
 * merged in its place (the latest wins, a `write` after a `create` stays a `create`); past the
 * limit new events are dropped and one `overflow` follows the queued ones, after which events
 * are accepted again. `close()` ends the iteration and runs `stop` once.
 */
export class FileWatchQueue implements FileWatcher {
  readonly #maxQueuedEvents: number;
  readonly #stop: () => void | Promise<void>;
  readonly #events = new Map<string, FileWatchEvent>();
  readonly #waiters: Waiter[] = [];
  #overflowed = false;
  #ended = false;
  #error: unknown;
  #closing: Promise<void> | undefined;

  constructor(maxQueuedEvents: number, stop: () => void | Promise<void>) {
    this.#maxQueuedEvents = maxQueuedEvents;
    this.#stop = stop;
  }

  /** Queues `event` (or merges it, or drops it past the limit); nothing once ended. */
  push(event: FileWatchEvent): void {
    if (this.#ended || this.#overflowed) return;
    if (event.type === 'overflow') {
      this.#overflowed = true;
    } else {
      const queued = this.#events.get(event.path);
      if (queued !== undefined) {
        if (!(queued.type === 'create' && event.type === 'write')) {
          this.#events.set(event.path, event);
        }
      } else if (this.#events.size >= this.#maxQueuedEvents) {
        this.#overflowed = true;
      } else {
        this.#events.set(event.path, event);
      }
    }
    this.#wake();
  }

  /**
   * Ends the iteration once the queued events are taken; with `error`, the consumer's next call
   * after them throws it. Only the first call counts.
   */
  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#wake();
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.end();
      this.#events.clear();
      this.#overflowed = false;
      this.#wake();
      await this.#stop();
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<FileWatchEvent> {
    return {
      next: () => this.#next(),
      return: async () => {
        await this.close();
        return DONE;
      },
    };
  }

  #next(): Promise<IteratorResult<FileWatchEvent>> {
    const ready = this.#take();
    if (ready !== undefined) return ready;
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** What the consumer gets now, or `undefined` when it has to wait. */
  #take(): Promise<IteratorResult<FileWatchEvent>> | undefined {
    for (const [key, event] of this.#events) {
      this.#events.delete(key);
      return Promise.resolve({ done: false, value: event });
    }
    if (this.#overflowed) {
      this.#overflowed = false;
      return Promise.resolve({ done: false, value: { type: 'overflow', path: '' } });
    }
    if (!this.#ended) return undefined;
    const error = this.#error;
    this.#error = undefined;
    return error === undefined ? Promise.resolve(DONE) : Promise.reject(error);
  }

  #wake(): void {
    while (this.#waiters.length > 0) {
      const ready = this.#take();
      if (ready === undefined) return;
      const waiter = this.#waiters.shift() as Waiter;
      ready.then(waiter.resolve, waiter.reject);
    }
  }
}
