import { msUntil } from './ms-until.js';

/**
 * A place in a {@link CellQueue}: `ready` (the cells before it ended; call `release` once the
 * cell ends), or `timeout` / `aborted` (it gave up waiting; its place is freed by itself).
 */
export type CellTurn =
  | { outcome: 'ready'; release: () => void }
  | { outcome: 'timeout' | 'aborted' };

/** The line of cells waiting for the kernel: one at a time, in the order they came. */
export class CellQueue {
  #tail: Promise<void> = Promise.resolve();

  /**
   * Takes the next place in line (synchronously, before the first `await`) and waits for the
   * cells before it, at most until `deadline` (a `Date.now()` time) or the abort of `signal`. A
   * cell that gave up leaves its place once the cells before it end, so later ones keep order.
   */
  async wait(deadline: number, signal: AbortSignal | undefined): Promise<CellTurn> {
    const previous = this.#tail;
    let release = () => {};
    this.#tail = new Promise((resolve) => {
      release = resolve;
    });
    const outcome = await waitForTurn(previous, deadline, signal);
    if (outcome === 'ready') return { outcome, release };
    void previous.then(release);
    return { outcome };
  }
}

/** Waits for `previous`, at most until `deadline` or the abort of `signal`. */
async function waitForTurn(
  previous: Promise<void>,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<'ready' | 'timeout' | 'aborted'> {
  if (signal?.aborted) return 'aborted';
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  try {
    return await Promise.race([
      previous.then(() => 'ready' as const),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), msUntil(deadline));
      }),
      new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
