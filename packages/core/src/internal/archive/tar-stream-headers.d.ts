// tar-stream's own header codec (`tar-stream/headers.js`), which its typings leave out.
declare module 'tar-stream/headers.js' {
  import type { Headers } from 'tar-stream';

  /** A 512-byte ustar header, or `null` when a field does not fit (a pax header is needed). */
  export function encode(header: Headers): Buffer | null;
  /** The body of a pax header carrying the name and the link name. */
  export function encodePax(header: { name: string; linkname?: string | undefined }): Buffer;
  /**
   * The header in a 512-byte block; `null` for a block of zeros. Throws on a bad checksum, and on
   * a format neither ustar nor GNU unless `allowUnknownFormat`.
   */
  export function decode(
    block: Buffer,
    filenameEncoding: string,
    allowUnknownFormat: boolean,
  ): (Headers & { type: Headers['type'] | null; size: number }) | null;
  /** The records of a pax header's body. */
  export function decodePax(body: Buffer): Record<string, string>;
  /** The name in a GNU long-name body. */
  export function decodeLongPath(body: Buffer, encoding: string): string;
}
