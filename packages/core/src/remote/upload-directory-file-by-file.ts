import { lstat, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { CommandResult } from '@agent-workspace/protocol';
import { MAX_COMMAND_BYTES } from '@agent-workspace/protocol/constants';
import {
  LocalDirectoryFailure,
  openLocalDirectory,
} from '../internal/archive/open-local-directory.js';
import { shellQuote } from '../internal/process/shell-quote.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { AgentServerClient } from './agent-server-client.js';
import { uploadRemoteFile } from './upload-remote-file.js';

/** Options of {@link uploadDirectoryFileByFile}. */
export interface UploadDirectoryFileByFileOptions {
  client: AgentServerClient;
  /** Runs a shell command on the server (directories, links, modes). */
  run: (command: string) => Promise<CommandResult>;
  /** Absolute directory on this machine. */
  sourcePath: string;
  /** Absolute directory on the server. */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/** A command's share of `MAX_COMMAND_BYTES` used per batch of script lines. */
const SCRIPT_BATCH_BYTES = Math.floor(MAX_COMMAND_BYTES / 2);

/**
 * `uploadDirectory` for a server without the directory-archive extension (an OpenHands
 * server): walks the local tree without following links, creates the directories with
 * `mkdir -p` commands, uploads each regular file with `POST /api/file/upload`, then creates the
 * links (`ln -sfn`) and sets the modes (`chmod`) with commands, batched. The server's own rules
 * apply to each file (an OpenHands server writes through links it finds). The tree's listing
 * is held in memory.
 */
export async function uploadDirectoryFileByFile(
  options: UploadDirectoryFileByFileOptions,
): Promise<DirectoryTransferResult> {
  const { client, run, sourcePath, destinationPath, signal } = options;
  const result = { success: false, sourcePath, destinationPath, files: 0, bytes: 0 };
  const failed = (error: string): DirectoryTransferResult => ({ ...result, error });
  let root: string;
  try {
    const opened = await openLocalDirectory(sourcePath, 'source');
    opened.handle.close();
    root = opened.realPath;
  } catch (error) {
    if (error instanceof LocalDirectoryFailure) return failed(error.message);
    throw error;
  }
  const remote = (relative: string) => shellQuote(path.posix.join(destinationPath, relative));
  const before = [`mkdir -p -- ${remote('.')}`];
  const after: string[] = [];
  const files: { relative: string; mode: number }[] = [];
  const pending = [''];
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    for (const name of (await readdir(path.join(root, relative))).sort()) {
      const child = path.posix.join(relative, name);
      const stats = await lstat(path.join(root, child));
      if (stats.isDirectory()) {
        pending.push(child);
        before.push(
          `mkdir -p -- ${remote(child)} && chmod ${octal(stats.mode)} -- ${remote(child)}`,
        );
      } else if (stats.isSymbolicLink()) {
        after.push(
          `ln -sfn -- ${shellQuote(await readlink(path.join(root, child)))} ${remote(child)}`,
        );
      } else if (stats.isFile()) {
        files.push({ relative: child, mode: stats.mode });
        if ((stats.mode & 0o777) !== 0o644)
          after.push(`chmod ${octal(stats.mode)} -- ${remote(child)}`);
      }
    }
  }
  const scripted = await runBatched(run, before);
  if (scripted !== undefined) return failed(`cannot create directories on the server: ${scripted}`);
  for (const { relative } of files) {
    if (signal?.aborted) break;
    const uploaded = await uploadRemoteFile({
      client,
      sourcePath: path.join(root, relative),
      destinationPath: path.posix.join(destinationPath, relative),
      signal,
    });
    if (!uploaded.success) return failed(uploaded.error ?? `cannot upload ${relative}`);
    result.files += 1;
    result.bytes += uploaded.fileSize ?? 0;
  }
  const finished = await runBatched(run, after);
  if (finished !== undefined)
    return failed(`cannot create links or set modes on the server: ${finished}`);
  return { ...result, success: true };
}

/** Runs `lines` joined with `&&` in batches; the stderr of the first failing batch, if any. */
async function runBatched(
  run: (command: string) => Promise<CommandResult>,
  lines: readonly string[],
): Promise<string | undefined> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return undefined;
    const outcome = await run(`set -e\n${batch.join('\n')}`);
    batch = [];
    bytes = 0;
    return outcome.exitCode === 0
      ? undefined
      : outcome.stderr.trim() || `exit code ${outcome.exitCode}`;
  };
  for (const line of lines) {
    if (bytes + line.length > SCRIPT_BATCH_BYTES) {
      const failure = await flush();
      if (failure !== undefined) return failure;
    }
    batch.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  return flush();
}

/** Permission bits as `chmod` takes them (set-id bits dropped). */
function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}
