/**
 * Finds every occurrence of many literal strings in one pass (Aho–Corasick over UTF-16 code
 * units), overlapping ones included: time linear in the text plus the matches, whatever the
 * number of needles.
 */
export class NeedleIndex {
  /** Transitions of each node. */
  readonly #next: Map<number, number>[] = [new Map()];
  /** Failure link of each node. */
  readonly #fail: number[] = [0];
  /** Lengths of the needles ending at each node (its own and those of its suffixes). */
  readonly #out: number[][] = [[]];

  /** Transitions of the root by code unit (0: none), read for most characters of a text. */
  readonly #rootNext = new Int32Array(0x10000);

  /** Longest needle. */
  readonly maxLength: number;

  constructor(needles: Iterable<string>) {
    let maxLength = 0;
    for (const needle of needles) {
      if (needle === '') continue;
      let node = 0;
      for (let index = 0; index < needle.length; index += 1) {
        const code = needle.charCodeAt(index);
        let child = this.#next[node]!.get(code);
        if (child === undefined) {
          child = this.#next.length;
          this.#next.push(new Map());
          this.#fail.push(0);
          this.#out.push([]);
          this.#next[node]!.set(code, child);
        }
        node = child;
      }
      this.#out[node]!.push(needle.length);
      maxLength = Math.max(maxLength, needle.length);
    }
    this.maxLength = maxLength;
    this.#link();
    for (const [code, child] of this.#next[0]!) this.#rootNext[code] = child;
  }

  /** Calls `found(start, end)` for every occurrence, in order of `end`. */
  find(text: string, found: (start: number, end: number) => void): void {
    const rootNext = this.#rootNext;
    let node = 0;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      let child = node === 0 ? undefined : this.#next[node]!.get(code);
      while (child === undefined && node !== 0) {
        node = this.#fail[node]!;
        if (node !== 0) child = this.#next[node]!.get(code);
      }
      node = child ?? rootNext[code]!;
      const out = this.#out[node]!;
      for (let at = 0; at < out.length; at += 1) found(index + 1 - out[at]!, index + 1);
    }
  }

  /** Breadth-first failure links; each node's outputs gain those of its failure node. */
  #link(): void {
    const queue: number[] = [...this.#next[0]!.values()];
    for (let head = 0; head < queue.length; head += 1) {
      const node = queue[head]!;
      for (const [code, child] of this.#next[node]!) {
        let fallback = this.#fail[node]!;
        while (fallback !== 0 && !this.#next[fallback]!.has(code)) fallback = this.#fail[fallback]!;
        const target = this.#next[fallback]!.get(code);
        this.#fail[child] = target !== undefined && target !== child ? target : 0;
        this.#out[child] = [...this.#out[child]!, ...this.#out[this.#fail[child]!]!];
        queue.push(child);
      }
    }
  }
}
