import { createHash, type Hash } from 'node:crypto';

/** Length of the hex content hash in image tags. */
export const CONTENT_HASH_LENGTH = 12;

/**
 * A sha256 over named parts, each framed by its name and byte length so that no two different
 * inputs hash alike. Parts are strings, bytes or async byte sources (files read as streams).
 */
export class ContentHash {
  readonly #hash: Hash = createHash('sha256');

  /** Adds a string or byte part. */
  add(name: string, value: string | Uint8Array): this {
    const bytes = typeof value === 'string' ? Buffer.from(value) : value;
    this.#hash.update(`${name}\0${bytes.byteLength}\0`).update(bytes);
    return this;
  }

  /** Adds a part read from `chunks` (of `byteLength` bytes in all). */
  async addStream(name: string, byteLength: number, chunks: AsyncIterable<Buffer>): Promise<this> {
    this.#hash.update(`${name}\0${byteLength}\0`);
    for await (const chunk of chunks) this.#hash.update(chunk);
    return this;
  }

  /** The first {@link CONTENT_HASH_LENGTH} hex digits of the digest. */
  digest(): string {
    return this.#hash.digest('hex').slice(0, CONTENT_HASH_LENGTH);
  }
}
