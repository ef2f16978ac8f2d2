/** Which output stream a chunk came from. */
export type OutputStream = 'stdout' | 'stderr';

/** Longest a chunk waits for more output of the same stream before it is emitted. */
export const COALESCE_DELAY_MS = 20;

/** Largest text (in UTF-16 code units) one emitted chunk carries. */
export const COALESCE_MAX_CHARS = 64 * 1024;

/**
 * Merges a command's output chunks into few, small, timely events: text of one stream is held
 * for at most {@link COALESCE_DELAY_MS} or until {@link COALESCE_MAX_CHARS} accumulate, and a
 * chunk of the other stream first emits what is held, so emitted chunks keep arrival order.
 */
export class OutputCoalescer {
  readonly #emit: (stream: OutputStream, text: string) => void;
  #stream: OutputStream = 'stdout';
  #parts: string[] = [];
  #length = 0;
  #timer: NodeJS.Timeout | undefined;

  /** @param emit - Receives each coalesced chunk, never empty. */
  constructor(emit: (stream: OutputStream, text: string) => void) {
    this.#emit = emit;
  }

  /** Adds a chunk of `stream`. */
  write(stream: OutputStream, text: string): void {
    if (text.length === 0) return;
    if (stream !== this.#stream || this.#length + text.length > COALESCE_MAX_CHARS) this.flush();
    this.#stream = stream;
    for (let start = 0; start < text.length; ) {
      let end = Math.min(start + COALESCE_MAX_CHARS, text.length);
      // Never split a surrogate pair between two events.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
      this.#parts.push(text.slice(start, end));
      this.#length += end - start;
      start = end;
      if (this.#length >= COALESCE_MAX_CHARS - 1) this.flush();
    }
    if (this.#length > 0) this.#timer ??= setTimeout(() => this.flush(), COALESCE_DELAY_MS);
  }

  /** Emits what is held now. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#length === 0) return;
    const text = this.#parts.length === 1 ? (this.#parts[0] as string) : this.#parts.join('');
    this.#parts = [];
    this.#length = 0;
    this.#emit(this.#stream, text);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
