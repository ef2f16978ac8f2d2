import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Options of {@link writeStreamAtomic}. */
export interface WriteStreamAtomicOptions {
  /** The bytes to write. */
  source: Readable;
  /** Absolute path of the file to create or replace. */
  destination: string;
  /** Permission bits of the new file (not subject to the umask); default `0o666` less the umask. */
  mode?: number | undefined;
  /** Runs once every byte is on disk, before the rename; throwing discards the file. */
  verify?: () => void;
}

/**
 * Streams `source` into a temporary file next to `destination` (memory stays flat whatever the
 * size), then renames it over `destination`; parent directories are created. Readers never see
 * a half-written file: on any failure the temporary file is removed, `destination` is left as it
 * was and the error (a file-system error or `verify`'s) is rethrown. Resolves to the bytes
 * written.
 */
export async function writeStreamAtomic(options: WriteStreamAtomicOptions): Promise<number> {
  const { source, destination, mode, verify } = options;
  const directory = path.dirname(destination);
  await mkdir(directory, { recursive: true });
  const suffix = randomBytes(6).toString('hex');
  const temporary = path.join(directory, `.${path.basename(destination)}.${suffix}.part`);
  // `wx`: never reuse a file someone else created under the same name.
  const handle = await open(temporary, 'wx', 0o666);
  let renamed = false;
  try {
    if (mode !== undefined) await handle.chmod(mode);
    const output = handle.createWriteStream();
    await pipeline(source, output);
    await handle.close();
    verify?.();
    await rename(temporary, destination);
    renamed = true;
    return output.bytesWritten;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await rm(temporary, { force: true });
    }
  }
}
