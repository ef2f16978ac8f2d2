import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';

/** One entry of a read archive. */
export interface ReadEntry {
  name: string;
  type: string;
  body: Buffer;
}

/** Reads a gzip tarball with tar-stream and zlib: every entry, in order, with its body. */
export async function readTarGz(archive: Buffer): Promise<ReadEntry[]> {
  const entries: ReadEntry[] = [];
  const reader = extract();
  Readable.from([archive]).pipe(createGunzip()).pipe(reader);
  for await (const entry of reader) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    entries.push({
      name: entry.header.name,
      type: entry.header.type ?? 'file',
      body: Buffer.concat(chunks),
    });
  }
  return entries;
}
