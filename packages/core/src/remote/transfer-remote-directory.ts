import type { CommandResult } from '@agent-workspace/protocol';
import type { CommandRequest } from '../workspace/base-workspace.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { AgentServerClient } from './agent-server-client.js';
import { downloadDirectoryByListing } from './download-directory-by-listing.js';
import { downloadRemoteDirectory } from './download-remote-directory.js';
import { uploadDirectoryFileByFile } from './upload-directory-file-by-file.js';
import { uploadRemoteDirectory } from './upload-remote-directory.js';

/** Timeout of each command of a fallback directory transfer (listing, `mkdir`, `ln`, `chmod`). */
const FALLBACK_COMMAND_TIMEOUT_MS = 300_000;

/** Options of {@link transferRemoteDirectory}. */
export interface TransferRemoteDirectoryOptions {
  /** `upload`: local `sourcePath` to the server; `download`: the other way. */
  direction: 'upload' | 'download';
  client: AgentServerClient;
  sourcePath: string;
  destinationPath: string;
  /** True when the server lists `DIRECTORY_ARCHIVE_CAPABILITY`. */
  archives: boolean;
  /** The workspace's working directory, where fallback commands run. */
  workingDir: string;
  /** Runs one command of a fallback transfer on the server. */
  runCommand: (request: CommandRequest) => Promise<CommandResult>;
  signal: AbortSignal;
}

/**
 * Copies a directory between this machine and the server. Uploads: one tar stream when the
 * server `archives` (see {@link uploadRemoteDirectory}), file by file otherwise (see
 * {@link uploadDirectoryFileByFile}). Downloads: one tar stream when it `archives` (see
 * {@link downloadRemoteDirectory}), otherwise OpenHands' `tar.gz` archive (see
 * `downloadDirectoryTarGz`, loaded then) unless it would not be a faithful copy, then by a listing
 * command and one download per file (see {@link downloadDirectoryByListing}).
 */
export async function transferRemoteDirectory({
  direction,
  archives,
  workingDir,
  runCommand,
  ...options
}: TransferRemoteDirectoryOptions): Promise<DirectoryTransferResult> {
  const run = (command: string) =>
    runCommand({
      command,
      cwd: workingDir,
      timeoutMs: FALLBACK_COMMAND_TIMEOUT_MS,
      env: {},
      signal: options.signal,
    });
  if (direction === 'upload') {
    return archives
      ? uploadRemoteDirectory(options)
      : uploadDirectoryFileByFile({ ...options, run });
  }
  if (archives) return downloadRemoteDirectory(options);
  // Loaded only for a server without archives: it brings tar-stream's streams with it.
  const { downloadDirectoryTarGz } = await import('./download-directory-tar-gz.js');
  return (
    (await downloadDirectoryTarGz({ ...options, run })) ??
    downloadDirectoryByListing({ ...options, run })
  );
}
