import type { ReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { addAbortSignal } from 'node:stream';
import type { FileOperationResult } from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import { checkCopyDestination } from '../internal/files/check-copy-destination.js';
import { CopyFailure } from '../internal/files/copy-failure.js';
import { createCopyParent } from '../internal/files/create-copy-parent.js';
import {
  type CopyPaths,
  type CopyStep,
  describeCopyError,
} from '../internal/files/describe-copy-error.js';
import { writeCopyDestination } from '../internal/files/write-copy-destination.js';

/** Input of {@link copyFileAtomic}. */
export interface CopyFileAtomicOptions {
  /** Absolute source path. */
  sourcePath: string;
  /** Absolute destination path. */
  destinationPath: string;
  /** Aborting stops the copy, removes the temporary file and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** Permission bits copied from the source (no setuid/setgid/sticky). */
const PERMISSION_BITS = 0o777;

/**
 * Copies a regular file by streaming it (memory stays flat for any size) into a temporary file
 * next to the destination, then renaming it over the destination. Parent directories are
 * created and the source's permission bits are kept.
 *
 * Readers never see a half-written destination, and a failed copy leaves no temporary file and
 * an existing destination untouched. File-system problems never throw: they give
 * `{ success: false, error }` with a message naming the offending path. Only an aborted
 * `signal` rejects, with a `WorkspaceError` of code `ABORTED`.
 *
 * @example
 * ```ts
 * const result = await copyFileAtomic({ sourcePath: '/tmp/a.bin', destinationPath: '/srv/b.bin' });
 * if (!result.success) console.error(result.error);
 * ```
 */
export async function copyFileAtomic({
  sourcePath,
  destinationPath,
  signal,
}: CopyFileAtomicOptions): Promise<FileOperationResult> {
  const paths: CopyPaths = { sourcePath, destinationPath };
  try {
    const fileSize = await copy(paths, signal);
    return { success: true, sourcePath, destinationPath, fileSize };
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    if (error instanceof CopyFailure) {
      return { success: false, sourcePath, destinationPath, error: error.message };
    }
    // Anything unexpected still becomes a result rather than an exception.
    return {
      success: false,
      sourcePath,
      destinationPath,
      error: describeCopyError(error, 'write-destination', paths),
    };
  }
}

/** Does the copy and returns the bytes written; throws {@link CopyFailure} with the message. */
async function copy(paths: CopyPaths, signal: AbortSignal | undefined): Promise<number> {
  const { sourcePath } = paths;
  signal?.throwIfAborted();

  const stats = await step('read-source', paths, () => stat(sourcePath));
  if (stats.isDirectory()) throw new CopyFailure(`source is a directory: ${sourcePath}`);
  if (!stats.isFile()) throw new CopyFailure(`source is not a regular file: ${sourcePath}`);

  await checkCopyDestination(paths);
  await createCopyParent(paths);
  let input: FileHandle | undefined;
  let reader: ReadStream | undefined;
  try {
    input = await step('read-source', paths, () => open(sourcePath, 'r'));
    reader = input.createReadStream();
    const source = signal ? addAbortSignal(signal, reader) : reader;
    // A failing read rejects as is; `copyFileAtomic` words it as a failed write.
    return await writeCopyDestination({
      source,
      paths,
      mode: stats.mode & PERMISSION_BITS,
      verify: () => signal?.throwIfAborted(),
    });
  } finally {
    // The reader closes the handle once done or destroyed; wait for that.
    reader?.destroy();
    await input?.close().catch(() => {});
  }
}

/** Runs one step, turning its file-system error into a {@link CopyFailure}. */
async function step<T>(name: CopyStep, paths: CopyPaths, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CopyFailure) throw error;
    throw new CopyFailure(describeCopyError(error, name, paths), { cause: error });
  }
}
