import type { Readable } from 'node:stream';
import { decodeLongPath, decodePax } from 'tar-stream/headers.js';
import { decodeTarHeader, type TarHeader } from './decode-tar-header.js';

export type { TarHeader } from './decode-tar-header.js';

/** One entry of {@link tarEntries}. */
export interface TarEntry {
  header: TarHeader;
  /**
   * The body piece by piece; what the caller leaves unread is skipped. A directory's is empty
   * (as tar-stream: a body it declares is not skipped).
   */
  body: TarBody;
}

/** The body of a {@link TarEntry}. */
export interface TarBody extends AsyncIterable<Buffer> {
  /** The whole body in one buffer, when none of it was read yet (for small bodies). */
  readWhole(): Promise<Buffer>;
  /** {@link readWhole} without waiting: `undefined` unless the whole body is buffered already. */
  takeWhole(): Buffer | undefined;
}

const EMPTY = Buffer.alloc(0);

/** Largest pax or GNU long-name header body accepted (as tar-stream). */
const MAX_HEADER_SIZE = 4 * 1024 * 1024;

/**
 * The entries of the tar stream `source`, parsed with tar-stream's header codec
 * (`decodeTarHeader`'s fast path for plain headers, tar-stream's `decode` for the rest) and its
 * rules (pax and global pax records, GNU long names, zero blocks skipped, a stream ending inside
 * an entry or a header is `Unexpected end of data`), without a stream per entry: a body is read
 * only when the caller asks, whole (`readWhole`) or piece by piece. The source is
 * read to its end; it is not destroyed when the caller stops early (it may still answer).
 * `signal` ends a read waiting on the source with its reason.
 */
export async function* tarEntries(
  source: Readable,
  signal?: AbortSignal | undefined,
): AsyncGenerator<TarEntry> {
  const input = new ChunkReader(source, signal);
  let pax: Record<string, string> | null = null;
  let paxGlobal: Record<string, string> | null = null;
  let longPath: string | null = null;
  let longLinkPath: string | null = null;
  try {
    for (;;) {
      // Each `await` below is skipped when the bytes are buffered: no promise per entry.
      if (input.buffered < 512 && !(await input.fill(512))) {
        if (input.buffered > 0) throw unexpectedEnd();
        return;
      }
      const header = decodeTarHeader(input.take(512));
      if (header === null) continue;
      switch (header.type) {
        case 'gnu-long-path':
        case 'gnu-long-link-path':
        case 'pax-global-header':
        case 'pax-header': {
          if (header.size > MAX_HEADER_SIZE) throw new Error('Header exceeds max size');
          if (!(await input.fill(header.size))) throw unexpectedEnd();
          const body = input.take(header.size);
          if (header.type === 'gnu-long-path') longPath = decodeLongPath(body, 'utf-8');
          else if (header.type === 'gnu-long-link-path')
            longLinkPath = decodeLongPath(body, 'utf-8');
          else if (header.type === 'pax-global-header') paxGlobal = decodePax(body);
          else pax = paxGlobal === null ? decodePax(body) : { ...paxGlobal, ...decodePax(body) };
          await input.skip(padding(header.size));
          continue;
        }
      }
      if (longPath !== null) {
        header.name = longPath;
        longPath = null;
      }
      if (longLinkPath !== null) {
        header.linkname = longLinkPath;
        longLinkPath = null;
      }
      if (pax !== null) {
        if (pax.path) header.name = pax.path;
        if (pax.linkpath) header.linkname = pax.linkpath;
        if (pax.size) header.size = Number.parseInt(pax.size, 10);
        header.pax = pax;
        pax = null;
      }
      if (!(header.size >= 0)) throw new Error('Invalid header');
      // As tar-stream: a directory's body, if it declares one, is not skipped.
      const size = header.type === 'directory' ? 0 : header.size;
      const body = new BodyReader(input, size);
      yield { header, body };
      if (body.missing > 0) await body.skipRest();
      const pad = padding(size);
      if (!input.skipBuffered(pad)) await input.skip(pad);
    }
  } finally {
    input.close();
  }
}

function unexpectedEnd(): Error {
  return new Error('Unexpected end of data');
}

/** The zeros after a body of `size` bytes, up to the next 512-byte block. */
function padding(size: number): number {
  const rest = size % 512;
  return rest === 0 ? 0 : 512 - rest;
}

/** An entry's body, read from the archive when asked. */
class BodyReader implements TarBody {
  readonly #input: ChunkReader;
  #missing: number;

  /** Bytes of the body not read yet. */
  get missing(): number {
    return this.#missing;
  }

  constructor(input: ChunkReader, size: number) {
    this.#input = input;
    this.#missing = size;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    while (this.#missing > 0) {
      const piece = await this.#input.takeUpTo(this.#missing);
      if (piece === undefined) throw unexpectedEnd();
      this.#missing -= piece.length;
      yield piece;
    }
  }

  async readWhole(): Promise<Buffer> {
    const size = this.#missing;
    if (!(await this.#input.fill(size))) throw unexpectedEnd();
    this.#missing = 0;
    return this.#input.take(size);
  }

  takeWhole(): Buffer | undefined {
    const size = this.#missing;
    if (this.#input.buffered < size) return undefined;
    this.#missing = 0;
    return this.#input.take(size);
  }

  /** Skips what the caller left unread. */
  async skipRest(): Promise<void> {
    await this.#input.skip(this.#missing);
    this.#missing = 0;
  }
}

/** The source's chunks, taken a given number of bytes at a time. */
class ChunkReader {
  readonly #iterator: AsyncIterator<Buffer>;
  readonly #signal: AbortSignal | undefined;
  readonly #aborted: Promise<never> | undefined;
  readonly #onAbort: (() => void) | undefined;
  readonly #chunks: Buffer[] = [];
  /** Bytes of the first chunk already taken. */
  #offset = 0;
  #ended = false;
  buffered = 0;

  constructor(source: Readable, signal: AbortSignal | undefined) {
    this.#iterator = source.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
    this.#signal = signal;
    if (signal !== undefined) {
      let reject: (reason: unknown) => void = () => {};
      this.#aborted = new Promise<never>((_, fail) => {
        reject = fail;
      });
      this.#aborted.catch(() => {});
      this.#onAbort = () => reject(signal.reason);
      if (signal.aborted) this.#onAbort();
      else signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  /** Reads until `bytes` are buffered; false when the source ends first. */
  async fill(bytes: number): Promise<boolean> {
    while (this.buffered < bytes) {
      if (!(await this.#pull())) return false;
    }
    return true;
  }

  /** The next `bytes` (buffered: see `fill`). */
  take(bytes: number): Buffer {
    if (bytes === 0) return EMPTY;
    const first = this.#chunks[0] as Buffer;
    if (first.length - this.#offset >= bytes) return this.#advance(first, bytes);
    const whole = Buffer.allocUnsafe(bytes);
    for (let copied = 0; copied < bytes; ) {
      const chunk = this.#chunks[0] as Buffer;
      const piece = this.#advance(chunk, Math.min(bytes - copied, chunk.length - this.#offset));
      piece.copy(whole, copied);
      copied += piece.length;
    }
    return whole;
  }

  /** Up to `bytes` of what comes next, reading when nothing is buffered; undefined at the end. */
  async takeUpTo(bytes: number): Promise<Buffer | undefined> {
    while (this.buffered === 0) {
      if (!(await this.#pull())) return undefined;
    }
    const first = this.#chunks[0] as Buffer;
    return this.#advance(first, Math.min(bytes, first.length - this.#offset));
  }

  /** Skips `bytes` when that many are buffered (true), else nothing (false). */
  skipBuffered(bytes: number): boolean {
    if (this.buffered < bytes) return false;
    for (let left = bytes; left > 0; ) {
      const first = this.#chunks[0] as Buffer;
      left -= this.#advance(first, Math.min(left, first.length - this.#offset)).length;
    }
    return true;
  }

  /** Skips `bytes`; a source ending first is `Unexpected end of data`. */
  async skip(bytes: number): Promise<void> {
    for (let left = bytes; left > 0; ) {
      const piece = await this.takeUpTo(left);
      if (piece === undefined) throw unexpectedEnd();
      left -= piece.length;
    }
  }

  /** Stops reading (the source itself is left as it is). */
  close(): void {
    if (this.#onAbort !== undefined) this.#signal?.removeEventListener('abort', this.#onAbort);
    if (!this.#ended) void this.#iterator.return?.()?.catch(() => {});
    this.#ended = true;
  }

  async #pull(): Promise<boolean> {
    if (this.#ended) return false;
    const pending = this.#iterator.next();
    const next = await (this.#aborted === undefined
      ? pending
      : Promise.race([pending, this.#aborted]));
    if (next.done) {
      this.#ended = true;
      return false;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.buffered += chunk.length;
    }
    return true;
  }

  /** Takes `bytes` from the first chunk, which holds that many past the offset. */
  #advance(first: Buffer, bytes: number): Buffer {
    const start = this.#offset;
    this.buffered -= bytes;
    if (start + bytes === first.length) {
      this.#chunks.shift();
      this.#offset = 0;
      return start === 0 ? first : first.subarray(start);
    }
    this.#offset += bytes;
    return first.subarray(start, start + bytes);
  }
}
