import { Readable } from 'node:stream';
import { type Headers, pack } from 'tar-stream';

/** One entry of a test archive: a header and, for files, its content. */
export interface TarEntry extends Headers {
  content?: string | Buffer;
}

/** Builds a tar archive of `entries`, as given (hostile names included). */
export async function buildTar(entries: readonly TarEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of archive as AsyncIterable<Buffer>) chunks.push(chunk);
  })();
  for (const { content, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (content === undefined) archive.entry(header, done);
      else archive.entry(header, content, done);
    });
  }
  archive.finalize();
  await collected;
  return Buffer.concat(chunks);
}

/** A readable of `buffer` in `chunkBytes` pieces. */
export function chunked(buffer: Buffer, chunkBytes = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < buffer.length; offset += chunkBytes) {
        yield buffer.subarray(offset, offset + chunkBytes);
      }
    })(),
  );
}

/**
 * The first header of `archive` with its size field set to `size` (octal, at most 8 GiB - 1)
 * and its checksum fixed: an entry that declares far more than it carries.
 */
export function withDeclaredSize(archive: Buffer, size: number): Buffer {
  const result = Buffer.from(archive);
  result.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  result.fill(' ', 148, 156);
  let sum = 0;
  for (let index = 0; index < 512; index++) sum += result[index] as number;
  result.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return result;
}
