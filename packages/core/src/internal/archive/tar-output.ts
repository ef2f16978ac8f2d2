import type { Headers } from 'tar-stream';
import { encode as encodeHeader, encodePax } from 'tar-stream/headers.js';
import { encodeTarHeaderInto } from './encode-tar-header.js';

const NONE: readonly Buffer[] = [];

/** An entry's header as {@link TarOutput.header} takes it. */
export interface TarEntryHeader {
  name: string;
  type: Headers['type'];
  /** Permission bits. */
  mode?: number | undefined;
  linkname?: string | undefined;
  /** Body size; 0 when absent. */
  size?: number | undefined;
  /** Modification time, ms since the epoch (`Stats.mtimeMs`); now when absent. */
  mtimeMs?: number | undefined;
}

/** Size of the pieces the stream yields (but the last and those of large files). */
const OUTPUT_CHUNK_BYTES = 256 * 1024;

/**
 * The archive being written: headers and small bodies go into a buffer of
 * {@link OUTPUT_CHUNK_BYTES}, taken away whole when full (a fresh one replaces it).
 */
export class TarOutput {
  #buffer = Buffer.allocUnsafe(OUTPUT_CHUNK_BYTES);
  #length = 0;
  /** Pieces ended by {@link seal}, waiting to be sent. */
  #sealed: Buffer[] = [];

  /** True once the buffer is worth sending. */
  get full(): boolean {
    return this.#length >= OUTPUT_CHUNK_BYTES - 512;
  }

  /** True when a header and a body of `size` bytes fit in what is left of the buffer. */
  fits(size: number): boolean {
    return this.#length + 1024 + padded(size) <= this.#buffer.length;
  }

  /** The bytes written so far, handed over; writing goes on into a fresh buffer. */
  take(): Buffer {
    const taken = this.#buffer.subarray(0, this.#length);
    this.#buffer = Buffer.allocUnsafe(OUTPUT_CHUNK_BYTES);
    this.#length = 0;
    return taken;
  }

  /** Ends the current piece (when it holds anything): it waits in {@link takeSealed}. */
  seal(): void {
    if (this.#length > 0) this.#sealed.push(this.take());
  }

  /** The pieces {@link seal} ended, handed over (the same empty array when there are none). */
  takeSealed(): readonly Buffer[] {
    if (this.#sealed.length === 0) return NONE;
    const sealed = this.#sealed;
    this.#sealed = [];
    return sealed;
  }

  /**
   * Writes the header of an entry (owner 0, as tar-stream's `pack` writes them; a pax header
   * first when a name does not fit ustar), in place when `encodeTarHeaderInto` can. Without
   * `mtimeMs` the entry is dated now.
   */
  header(entry: TarEntryHeader): void {
    // Built field by field: a spread costs more than the encoding, once per entry.
    const header = {
      name: entry.name,
      type: entry.type,
      mode: entry.mode,
      linkname: entry.linkname,
      size: entry.size ?? 0,
      mtimeMs: entry.mtimeMs ?? Date.now(),
    };
    this.#reserve(512);
    if (encodeTarHeaderInto(header, this.#buffer, this.#length)) {
      this.#length += 512;
      return;
    }
    const { mtimeMs, ...fields } = header;
    const full: Headers = { ...fields, uid: 0, gid: 0, mtime: new Date(mtimeMs) };
    const plain = encodeHeader(full);
    if (plain !== null) {
      this.#append(plain);
      return;
    }
    const pax = encodePax({ name: full.name, linkname: full.linkname ?? undefined });
    this.#append(
      encodeHeader({
        ...full,
        name: 'PaxHeader',
        linkname: full.linkname && 'PaxHeader',
        size: pax.length,
        type: 'pax-header',
      }) as Buffer,
    );
    this.#append(pax);
    this.pad(pax.length);
    this.#append(
      encodeHeader({
        ...full,
        name: 'PaxHeader',
        linkname: full.linkname && 'PaxHeader',
      }) as Buffer,
    );
  }

  /** Lets `write` put the `size` bytes of a body in place, then pads it (`fits` checked first). */
  fill(size: number, write: (buffer: Buffer, offset: number) => void): void {
    this.#reserve(padded(size));
    write(this.#buffer, this.#length);
    this.#length += size;
    this.pad(size);
  }

  /** Writes a body of any size and its padding; returns the full pieces to send first. */
  body(content: Buffer): Buffer[] {
    if (this.fits(content.length)) {
      this.fill(content.length, (buffer, offset) => content.copy(buffer, offset));
      return [];
    }
    const pieces = [this.take(), content];
    this.pad(content.length);
    return pieces;
  }

  /** The zeros that round a body of `size` bytes up to a 512-byte block. */
  pad(size: number): void {
    const rest = (512 - (size % 512)) % 512;
    if (rest === 0) return;
    this.#reserve(rest);
    this.#buffer.fill(0, this.#length, this.#length + rest);
    this.#length += rest;
  }

  /** The end of the archive (two zero blocks), then the last pieces. */
  *end(): Generator<Buffer> {
    this.#reserve(1024);
    this.#buffer.fill(0, this.#length, this.#length + 1024);
    this.#length += 1024;
    yield this.take();
  }

  #append(bytes: Buffer): void {
    this.#reserve(bytes.length);
    bytes.copy(this.#buffer, this.#length);
    this.#length += bytes.length;
  }

  /** Makes room for `bytes` more, growing the buffer when a piece would not fit at all. */
  #reserve(bytes: number): void {
    if (this.#length + bytes <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#length + bytes));
    this.#buffer.copy(grown, 0, 0, this.#length);
    this.#buffer = grown;
  }
}

/** `size` rounded up to a whole number of 512-byte blocks. */
function padded(size: number): number {
  return Math.ceil(size / 512) * 512;
}
