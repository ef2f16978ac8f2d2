/**
 * Keeps the last `maxBytes` bytes written to it in one ring buffer that grows on demand up to
 * `maxBytes`, so memory stays bounded however much (and in however small chunks) is written.
 */
export class TailBuffer {
  readonly #maxBytes: number;
  #buffer: Buffer = Buffer.alloc(0);
  /** Index of the oldest kept byte. */
  #start = 0;
  /** Number of kept bytes. */
  #length = 0;
  #totalBytes = 0;

  /** @param maxBytes - How many of the most recent bytes to keep (a non-negative integer). */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes written so far, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Bytes written but no longer kept. */
  get droppedBytes(): number {
    return this.#totalBytes - this.#length;
  }

  /** Bytes currently allocated for the ring (never more than `maxBytes`). */
  get capacity(): number {
    return this.#buffer.length;
  }

  /** Appends `chunk`, dropping the oldest bytes beyond the cap. */
  write(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length;
    if (this.#maxBytes === 0 || chunk.length === 0) return;
    if (chunk.length >= this.#maxBytes) {
      this.#grow(this.#maxBytes);
      this.#buffer.set(chunk.subarray(chunk.length - this.#maxBytes));
      this.#start = 0;
      this.#length = this.#maxBytes;
      return;
    }
    const needed = this.#length + chunk.length;
    if (needed > this.#buffer.length && this.#buffer.length < this.#maxBytes) {
      this.#grow(Math.min(this.#maxBytes, Math.max(needed, this.#buffer.length * 2, 4096)));
    }
    // Circular write; `chunk` is shorter than the capacity here.
    const capacity = this.#buffer.length;
    const end = (this.#start + this.#length) % capacity;
    const first = Math.min(chunk.length, capacity - end);
    this.#buffer.set(chunk.subarray(0, first), end);
    if (first < chunk.length) this.#buffer.set(chunk.subarray(first), 0);
    if (needed > capacity) {
      this.#start = (this.#start + needed - capacity) % capacity;
      this.#length = capacity;
    } else {
      this.#length = needed;
    }
  }

  /** The kept bytes, oldest first. */
  toBuffer(): Buffer {
    const end = this.#start + this.#length;
    if (end <= this.#buffer.length) return this.#buffer.subarray(this.#start, end);
    return Buffer.concat([
      this.#buffer.subarray(this.#start),
      this.#buffer.subarray(0, end - this.#buffer.length),
    ]);
  }

  /** Reallocates to `capacity` bytes with the kept bytes moved to the front. */
  #grow(capacity: number): void {
    if (capacity <= this.#buffer.length) return;
    const next = Buffer.allocUnsafe(capacity);
    this.toBuffer().copy(next, 0);
    this.#buffer = next;
    this.#start = 0;
  }
}
