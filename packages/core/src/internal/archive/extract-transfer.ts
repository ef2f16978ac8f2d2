import type { Readable } from 'node:stream';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import type { DirectoryTransferResult } from '../../workspace/directory-transfer.js';
import { extractArchive } from './extract-archive.js';

/** Options of {@link extractTransfer}. */
export interface ExtractTransferOptions {
  /** The tar stream of the transfer. */
  source: Readable;
  /** The open destination directory; the caller closes it afterwards. */
  destination: DirectoryHandle;
  /** The transfer's paths, for the result. */
  paths: Pick<DirectoryTransferResult, 'sourcePath' | 'destinationPath'>;
  signal?: AbortSignal | undefined;
}

/**
 * Extracts the tar stream of a directory transfer this machine asked for into its destination,
 * with no count or size limit (the caller chose the source), and reports it as a successful
 * {@link DirectoryTransferResult}. Rejects as `extractArchive` does.
 */
export async function extractTransfer({
  source,
  destination,
  paths,
  signal,
}: ExtractTransferOptions): Promise<DirectoryTransferResult> {
  const summary = await extractArchive({
    source,
    directory: destination,
    maxEntries: Number.MAX_SAFE_INTEGER,
    maxBytes: Number.MAX_SAFE_INTEGER,
    signal,
  });
  const { sourcePath, destinationPath } = paths;
  return { success: true, sourcePath, destinationPath, files: summary.files, bytes: summary.bytes };
}
