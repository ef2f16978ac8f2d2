/** How many ids of dropped commands are remembered, to tell "expired" from "unknown". */
const MAX_TOMBSTONES = 10_000;

/** Ids of the most recently dropped commands, oldest forgotten first past a bound. */
export class DroppedCommandIds {
  readonly #ids = new Set<string>();

  /** Remembers `id`, forgetting the oldest id when over the bound. */
  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > MAX_TOMBSTONES) {
      this.#ids.delete(this.#ids.values().next().value as string);
    }
  }

  /** True when `id` is remembered. */
  has(id: string): boolean {
    return this.#ids.has(id);
  }
}
