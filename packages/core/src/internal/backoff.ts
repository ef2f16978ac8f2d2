/** Options of {@link Backoff}. */
export interface BackoffOptions {
  /** First delay, in milliseconds. */
  initialMs: number;
  /** Largest delay, in milliseconds. */
  maxMs: number;
  /** Growth per step. Default 2. */
  factor?: number | undefined;
}

/**
 * Exponential delays capped at `maxMs`: `initialMs`, `initialMs * factor`, ... until `reset()`.
 * Drives the adaptive poll interval (reset when data arrives) and reconnect attempts.
 *
 * @example
 * ```ts
 * const delay = new Backoff({ initialMs: 5, maxMs: 100 });
 * delay.next(); // 5, then 10, 20, 40, 80, 100, 100, ...
 * ```
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  #currentMs: number;

  constructor({ initialMs, maxMs, factor = 2 }: BackoffOptions) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#factor = factor;
    this.#currentMs = initialMs;
  }

  /** Returns the next delay and grows the one after it. */
  next(): number {
    const delay = Math.min(this.#currentMs, this.#maxMs);
    this.#currentMs = Math.min(this.#currentMs * this.#factor, this.#maxMs);
    return delay;
  }

  /** Starts over at `initialMs`. */
  reset(): void {
    this.#currentMs = this.#initialMs;
  }
}
