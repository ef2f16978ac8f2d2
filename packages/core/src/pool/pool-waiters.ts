import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';

/** One `acquire()` waiting for a member. */
interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Options of {@link PoolWaiters.wait}. */
export interface WaitOptions {
  /** Rejects with `RESOURCE_EXHAUSTED` after this many milliseconds. */
  timeoutMs: number;
  /** Rejects with `ABORTED` when it fires. */
  signal?: AbortSignal | undefined;
  /** Jump the queue (an acquire whose member turned out dead keeps its turn). */
  front?: boolean | undefined;
  /** Words for the timeout message, e.g. the pool's counts. */
  describe: () => string;
}

/**
 * The FIFO queue of waiting acquires, bounded by `maxWaiters`. A waiter leaves it when served
 * ({@link PoolWaiters.serveFirst}), rejected, timed out or aborted; nothing else holds it.
 */
export class PoolWaiters<T> {
  readonly #queue: Waiter<T>[] = [];
  readonly #maxWaiters: number;

  constructor({ maxWaiters }: { maxWaiters: number }) {
    this.#maxWaiters = maxWaiters;
  }

  /** How many wait. */
  get length(): number {
    return this.#queue.length;
  }

  /**
   * Queues a waiter. Rejects at once with `RESOURCE_EXHAUSTED` when `maxWaiters` wait already;
   * `onQueued` runs once the waiter is in the queue (to start a member for it).
   */
  wait({ timeoutMs, signal, front, describe }: WaitOptions, onQueued: () => void): Promise<T> {
    if (this.#queue.length >= this.#maxWaiters) {
      return Promise.reject(
        new WorkspaceError({
          code: 'RESOURCE_EXHAUSTED',
          message: `the workspace pool has ${this.#queue.length} acquires waiting already (maxWaiters); try again later`,
          details: { field: 'maxWaiters', maxWaiters: this.#maxWaiters },
        }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      const onAbort = (): void => waiter.reject(abortedError(signal!));
      const timer = setTimeout(() => {
        waiter.reject(
          new WorkspaceError({
            code: 'RESOURCE_EXHAUSTED',
            message: `no pooled workspace became available within ${timeoutMs} ms (acquireTimeoutMs); ${describe()}`,
            details: { field: 'acquireTimeoutMs', timeoutMs },
          }),
        );
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (front) this.#queue.unshift(waiter);
      else this.#queue.push(waiter);
      onQueued();
    });
  }

  /** Hands `value` to the first waiter; false when nobody waits. */
  serveFirst(value: T): boolean {
    const first = this.#queue[0];
    if (!first) return false;
    first.resolve(value);
    return true;
  }

  /** Rejects the first waiter with `error`; false when nobody waits. */
  rejectFirst(error: unknown): boolean {
    const first = this.#queue[0];
    if (!first) return false;
    first.reject(error);
    return true;
  }

  /** Rejects every waiter with `error`. */
  rejectAll(error: unknown): void {
    for (const waiter of [...this.#queue]) waiter.reject(error);
  }
}
