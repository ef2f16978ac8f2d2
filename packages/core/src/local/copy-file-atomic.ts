import type { FileOperationResult } from '@agent-workspace/protocol';

/** Input of {@link copyFileAtomic}. */
export interface CopyFileAtomicOptions {
  /** Absolute source path. */
  sourcePath: string;
  /** Absolute destination path. */
  destinationPath: string;
  signal?: AbortSignal;
}

/** Streams a file to its destination atomically. TODO(helper): implement. */
export async function copyFileAtomic(
  _options: CopyFileAtomicOptions,
): Promise<FileOperationResult> {
  throw new Error('not implemented');
}
