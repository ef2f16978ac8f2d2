import { Backoff } from '../internal/backoff.js';

/**
 * Holds background starts back after failures: each failure blocks refills for the next delay
 * of an exponential backoff; a success clears it. Arms one timer to try again when the block ends.
 */
export class RefillThrottle {
  readonly #backoff: Backoff;
  readonly #retry: () => void;
  #blockedUntil = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { initialMs: number; maxMs: number; retry: () => void }) {
    this.#backoff = new Backoff(options);
    this.#retry = options.retry;
  }

  /** Records a failure; returns how long refills now wait, in milliseconds. */
  failed(): number {
    const delay = this.#backoff.next();
    this.#blockedUntil = Date.now() + delay;
    return delay;
  }

  /** Records a success: refills may go at once. */
  succeeded(): void {
    this.#backoff.reset();
    this.#blockedUntil = 0;
  }

  /** True when refills may start now; otherwise arms the retry timer (unreferenced). */
  allowed(): boolean {
    const wait = this.#blockedUntil - Date.now();
    if (wait <= 0) return true;
    if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#retry();
      }, wait);
      this.#timer.unref();
    }
    return false;
  }

  /** Disarms the timer for good. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#blockedUntil = Number.POSITIVE_INFINITY;
  }
}
