import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { WorkspaceError } from '@agent-workspace/core';
import {
  locateFileForWrite,
  openRegularFile,
  type PathWalker,
  writeStreamAtomic,
} from '@agent-workspace/core/internal';
import type { ServerContext } from '../app/server-context.js';

/**
 * Reads a whole regular file a client path names through the server's path walker (race-free,
 * and confined when the server is), refusing one larger than `maxBytes`.
 *
 * @throws WorkspaceError a path error naming `field`; `RESOURCE_EXHAUSTED` over `maxBytes`.
 */
export async function readServerFile(
  paths: PathWalker,
  input: string,
  field: string,
  maxBytes: number,
): Promise<Buffer> {
  const { fd, stats } = openRegularFile(paths, input, field);
  if (stats.size > maxBytes) {
    createReadStream('', { fd }).destroy();
    throw new WorkspaceError({
      code: 'RESOURCE_EXHAUSTED',
      message: `${field} names a file of ${stats.size} bytes, more than the ${maxBytes} this call reads`,
      details: { field },
    });
  }
  if (stats.size === 0) {
    createReadStream('', { fd }).destroy();
    return Buffer.alloc(0);
  }
  const chunks: Buffer[] = [];
  const stream = createReadStream('', { fd, start: 0, end: stats.size - 1 });
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * Writes a file a client path names atomically (a temporary file renamed into place, journaled
 * for the next start's sweep), creating missing parents, through the server's path walker.
 * Returns the file's real path.
 *
 * @throws WorkspaceError a path error naming `field`.
 */
export async function writeServerFile(
  context: ServerContext,
  input: string,
  field: string,
  source: Readable,
): Promise<string> {
  const destination = locateFileForWrite(context.paths, input, field);
  const directory = destination.parent;
  const directoryPath = directory.realPath();
  try {
    await writeStreamAtomic({
      source,
      directory,
      name: destination.name,
      mode: destination.mode,
      onTemporaryFile: (event, name) =>
        context.runtime.temporaryFile(event, `${directoryPath}/${name}`),
    });
    return `${directoryPath}/${destination.name}`;
  } finally {
    directory.close();
  }
}
