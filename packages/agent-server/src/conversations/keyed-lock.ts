/**
 * Runs tasks one at a time per key (tasks of different keys run side by side), in the order they
 * were asked for. A key holds nothing once its last task is done.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` once every task asked for before under `key` has settled. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    this.#tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
