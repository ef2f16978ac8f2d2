import type { FileWatchEvent, FileWatcher } from './file-watch.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

interface Waiter {
  resolve(result: IteratorResult<FileWatchEvent>): void;
  reject(error: unknown): void;
}

/** Options of {@link FileWatchQueue}. */
export interface FileWatchQueueOptions {
  /** Most paths waiting for the consumer. */
  maxQueuedEvents: number;
  /** Most events handed out per second, after a burst of as many; unbounded when absent. */
  maxEventsPerSecond?: number | undefined;
  /** Stops the producer; run once by `close()`. */
  stop: () => void | Promise<void>;
}

/**
 * The bounded queue behind every {@link FileWatcher}: a producer `push`es events and `end`s it,
 * one consumer iterates. At most `maxQueuedEvents` paths wait; events for a queued path are
 * merged in its place (the latest wins, a `write` after a `create` stays a `create`); past the
 * limit new events are dropped and one `overflow` follows the queued ones, after which events
 * are accepted again. At most `maxEventsPerSecond` events are handed out per second (a token
 * bucket as deep as the rate): while the consumer is held back, events keep merging in the
 * queue. `close()` ends the iteration and runs `stop` once.
 */
export class FileWatchQueue implements FileWatcher {
  readonly #maxQueuedEvents: number;
  readonly #stop: () => void | Promise<void>;
  readonly #ratePerMs: number | undefined;
  readonly #burst: number;
  #tokens: number;
  #refilledAt = performance.now();
  /** Ends the wait of a consumer held back by the rate. */
  #releasePace: (() => void) | undefined;
  readonly #events = new Map<string, FileWatchEvent>();
  readonly #waiters: Waiter[] = [];
  #overflowed = false;
  #ended = false;
  #error: unknown;
  #closing: Promise<void> | undefined;

  constructor({ maxQueuedEvents, maxEventsPerSecond, stop }: FileWatchQueueOptions) {
    this.#maxQueuedEvents = maxQueuedEvents;
    this.#stop = stop;
    this.#ratePerMs = maxEventsPerSecond === undefined ? undefined : maxEventsPerSecond / 1000;
    this.#burst = maxEventsPerSecond ?? 0;
    this.#tokens = this.#burst;
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
    this.#releasePace?.();
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

  async #next(): Promise<IteratorResult<FileWatchEvent>> {
    await this.#pace();
    const ready = this.#take();
    if (ready !== undefined) return ready;
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Waits until the rate allows one more event (at once when unbounded or ended). */
  async #pace(): Promise<void> {
    if (this.#ratePerMs === undefined) return;
    this.#refill(this.#ratePerMs);
    if (this.#tokens >= 1 || this.#ended) return;
    const wait = (1 - this.#tokens) / this.#ratePerMs;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#releasePace?.(), wait);
      this.#releasePace = () => {
        clearTimeout(timer);
        this.#releasePace = undefined;
        resolve();
      };
    });
    this.#refill(this.#ratePerMs);
  }

  /** Adds the tokens earned since the last refill, up to the burst. */
  #refill(ratePerMs: number): void {
    const now = performance.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#refilledAt) * ratePerMs);
    this.#refilledAt = now;
  }

  /** What the consumer gets now, or `undefined` when it has to wait. */
  #take(): Promise<IteratorResult<FileWatchEvent>> | undefined {
    for (const [key, event] of this.#events) {
      this.#events.delete(key);
      return this.#handOut(event);
    }
    if (this.#overflowed) {
      this.#overflowed = false;
      return this.#handOut({ type: 'overflow', path: '' });
    }
    if (!this.#ended) return undefined;
    const error = this.#error;
    this.#error = undefined;
    return error === undefined ? Promise.resolve(DONE) : Promise.reject(error);
  }

  /** `event` as the consumer's next result, spending one token of the rate. */
  #handOut(event: FileWatchEvent): Promise<IteratorResult<FileWatchEvent>> {
    if (this.#ratePerMs !== undefined) this.#tokens = Math.max(0, this.#tokens - 1);
    return Promise.resolve({ done: false, value: event });
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
