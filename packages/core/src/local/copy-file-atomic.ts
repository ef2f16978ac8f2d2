import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileOperationResult } from '@agent-workspace/protocol';
import { abortedError } from '../workspace/base-workspace.js';
import {
  type CopyPaths,
  type CopyStep,
  describeCopyError,
  errorCode,
  findNonDirectoryAncestor,
} from './describe-copy-error.js';

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

/** A failure at one step, turned into a `success: false` result by {@link copyFileAtomic}. */
class CopyFailure extends Error {}

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
  const { sourcePath, destinationPath } = paths;
  signal?.throwIfAborted();

  const source = await step('read-source', paths, () => stat(sourcePath));
  if (source.isDirectory()) throw new CopyFailure(`source is a directory: ${sourcePath}`);
  if (!source.isFile()) throw new CopyFailure(`source is not a regular file: ${sourcePath}`);

  await checkDestination(paths);
  const directory = path.dirname(destinationPath);
  await createParent(directory, paths);

  const tempPath = path.join(
    directory,
    `.${path.basename(destinationPath)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let input: FileHandle | undefined;
  let output: FileHandle | undefined;
  let renamed = false;
  try {
    input = await step('read-source', paths, () => open(sourcePath, 'r'));
    // `wx`: never reuse a file someone else created under the same name.
    output = await step('write-destination', paths, () => open(tempPath, 'wx', 0o600));
    // fchmod is not subject to the umask; an open fd stays writable whatever the mode.
    await step('write-destination', paths, () => output!.chmod(source.mode & PERMISSION_BITS));
    const writer = output.createWriteStream();
    await step('write-destination', paths, () =>
      pipeline(input!.createReadStream(), writer, signal ? { signal } : {}),
    );
    // Both streams auto-close their handles; wait for that before the rename.
    await Promise.all([input.close(), output.close()]);
    signal?.throwIfAborted();
    await step('write-destination', paths, () => rename(tempPath, destinationPath));
    renamed = true;
    return writer.bytesWritten;
  } finally {
    if (!renamed) {
      await Promise.allSettled([input?.close(), output?.close()]);
      await rm(tempPath, { force: true }).catch(() => {});
    }
  }
}

/** Fails when the destination is a directory or sits below a file. */
async function checkDestination(paths: CopyPaths): Promise<void> {
  let destination: Stats;
  try {
    destination = await stat(paths.destinationPath);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw await parentIsFileFailure(paths);
    throw new CopyFailure(describeCopyError(error, 'inspect-destination', paths));
  }
  if (destination.isDirectory()) {
    throw new CopyFailure(`destination is a directory: ${paths.destinationPath}`);
  }
}

/** `mkdir -p` of the destination's directory. */
async function createParent(directory: string, paths: CopyPaths): Promise<void> {
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOTDIR' || code === 'EEXIST') throw await parentIsFileFailure(paths);
    throw new CopyFailure(describeCopyError(error, 'create-parent', paths));
  }
}

async function parentIsFileFailure(paths: CopyPaths): Promise<CopyFailure> {
  const blocker = await findNonDirectoryAncestor(path.dirname(paths.destinationPath));
  return new CopyFailure(
    blocker
      ? `destination parent is not a directory: ${blocker} is a file`
      : `destination parent is not a directory: ${path.dirname(paths.destinationPath)}`,
  );
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
