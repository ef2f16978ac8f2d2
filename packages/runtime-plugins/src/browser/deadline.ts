/** What {@link Deadline.race} answers: the promise's value, or that time ran out first. */
export type Raced<T> = { settled: true; value: T } | { settled: false };

/**
 * The moment a browser action must be done by, from the action's `timeoutMs`, cut short when its
 * signal aborts. Every wait of the action takes its timeout from here, so the action as a whole
 * is bounded.
 */
export class Deadline {
  readonly #at: number;
  readonly #signal: AbortSignal | undefined;

  private constructor(at: number, signal: AbortSignal | undefined) {
    this.#at = at;
    this.#signal = signal;
  }

  /** A deadline `ms` from now, passed early when `signal` aborts. */
  static after(ms: number, signal?: AbortSignal): Deadline {
    return new Deadline(Date.now() + ms, signal);
  }

  /** Milliseconds left; 0 once passed or aborted. */
  remainingMs(): number {
    if (this.#signal?.aborted) return 0;
    return Math.max(0, this.#at - Date.now());
  }

  /** True once passed or aborted. */
  get expired(): boolean {
    return this.remainingMs() === 0;
  }

  /** True when the signal aborted (the client went away, the host closes). */
  get aborted(): boolean {
    return this.#signal?.aborted === true;
  }

  /** A deadline `ms` earlier than this one (never before now), sharing its signal. */
  earlier(ms: number): Deadline {
    return new Deadline(Math.max(Date.now(), this.#at - ms), this.#signal);
  }

  /**
   * A timeout for one Playwright call: what is left, at most `capMs`, at least 1 ms (Playwright
   * reads 0 as "no timeout").
   */
  timeoutMs(capMs = Number.POSITIVE_INFINITY): number {
    return Math.max(1, Math.min(this.remainingMs(), capMs));
  }

  /**
   * Waits for `promise` until the deadline (at most `capMs`). A rejection before then is thrown;
   * whatever the promise does after is ignored, so a call stuck in a page cannot hold the action.
   */
  async race<T>(promise: Promise<T>, capMs = Number.POSITIVE_INFINITY): Promise<Raced<T>> {
    promise.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timedOut = new Promise<Raced<T>>((resolve) => {
      const expire = () => resolve({ settled: false });
      timer = setTimeout(expire, Math.min(this.remainingMs(), capMs));
      onAbort = expire;
      this.#signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([
        promise.then((value): Raced<T> => ({ settled: true, value })),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) this.#signal?.removeEventListener('abort', onAbort);
    }
  }
}
