import { PassThrough } from 'node:stream';
import { abortedError } from '../../errors/aborted-error.js';
import {
  type DirectoryTransferResult,
  directoryTransferFailure,
} from '../../workspace/directory-transfer.js';
import { archiveProblemOf } from './archive-entry-error.js';
import { extractTransfer } from './extract-transfer.js';
import { LocalDirectoryFailure, openLocalDirectory } from './open-local-directory.js';
import { packDirectory } from './pack-directory.js';

/** Options of {@link copyDirectory}. */
export interface CopyDirectoryOptions {
  /** Absolute source directory on this machine. */
  sourcePath: string;
  /** Absolute destination directory on this machine (created when missing). */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/**
 * Copies a directory tree on this machine as a `DirectoryTransfer` does: packed and extracted
 * in one stream (so with the same rules: nothing followed, links kept as links, atomic files,
 * nothing written through a link at the destination). A destination inside the source is
 * refused. Problems with the files are results; an aborted signal rejects `ABORTED`.
 */
export async function copyDirectory(
  options: CopyDirectoryOptions,
): Promise<DirectoryTransferResult> {
  const { sourcePath, destinationPath, signal } = options;
  const failed = (error: string) =>
    directoryTransferFailure({ sourcePath, destinationPath }, error);
  if (signal?.aborted) throw abortedError(signal);
  let source: Awaited<ReturnType<typeof openLocalDirectory>> | undefined;
  let destination: Awaited<ReturnType<typeof openLocalDirectory>> | undefined;
  try {
    source = await openLocalDirectory(sourcePath, 'source');
    destination = await openLocalDirectory(destinationPath, 'destination', { create: true });
    const inner = destination.realPath;
    if (inner === source.realPath || inner.startsWith(`${source.realPath}/`)) {
      return failed(`destination ${destinationPath} is inside the source ${sourcePath}`);
    }
    const packed = packDirectory({ directory: source.handle, signal });
    const piped = packed.pipe(new PassThrough());
    packed.once('error', (error) => piped.destroy(error));
    return await extractTransfer({
      source: piped,
      destination: destination.handle,
      paths: { sourcePath, destinationPath },
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    if (error instanceof LocalDirectoryFailure) return failed(error.message);
    if (archiveProblemOf(error) !== undefined) return failed((error as Error).message);
    return failed(`cannot copy ${sourcePath} to ${destinationPath}: ${(error as Error).message}`);
  } finally {
    source?.handle.close();
    destination?.handle.close();
  }
}
