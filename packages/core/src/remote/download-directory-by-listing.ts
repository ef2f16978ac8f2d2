import type { Readable } from 'node:stream';
import type { CommandResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { WorkspaceError } from '../errors/workspace-error.js';
import { errnoOf } from '../fs/path-error.js';
import { writeStreamAtomic } from '../fs/write-stream-atomic.js';
import { ArchiveDirectories } from '../internal/archive/archive-directories.js';
import { archiveEntryComponents } from '../internal/archive/archive-entry-components.js';
import { archiveProblemOf } from '../internal/archive/archive-entry-error.js';
import { createArchiveSymlink } from '../internal/archive/create-archive-symlink.js';
import {
  LocalDirectoryFailure,
  openLocalDirectory,
} from '../internal/archive/open-local-directory.js';
import { refuseReplacing } from '../internal/archive/refuse-replacing.js';
import { shellQuote } from '../internal/process/shell-quote.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';

/** Options of {@link downloadDirectoryByListing}. */
export interface DownloadDirectoryByListingOptions {
  client: AgentServerClient;
  /** Runs a shell command on the server (its output is the listing). */
  run: (command: string) => Promise<CommandResult>;
  /** Absolute directory on the server. */
  sourcePath: string;
  /** Absolute directory on this machine (created when missing). */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/** First line of the listing's output; its absence means the output was cut (too long). */
const LISTING_MARKER = 'agent-workspace-listing';

/**
 * `downloadDirectory` for a server without the directory-archive extension (an OpenHands
 * server): lists the tree with one command (GNU `find -printf`, base64-encoded so any name
 * survives), then downloads each file with `GET /api/file/download` into the destination with
 * the same rules as an archive (names checked, nothing written through a link, atomic files,
 * modes kept) and creates the links last. The listing is held in memory and must fit the
 * workspace's `maxOutputBytes` (otherwise a failure result says so).
 */
export async function downloadDirectoryByListing(
  options: DownloadDirectoryByListingOptions,
): Promise<DirectoryTransferResult> {
  const { client, run, sourcePath, destinationPath, signal } = options;
  const result = { success: false, sourcePath, destinationPath, files: 0, bytes: 0 };
  const failed = (error: string): DirectoryTransferResult => ({ ...result, error });
  const listing = await run(
    `cd -- ${shellQuote(sourcePath)} && echo ${LISTING_MARKER} && ` +
      `find . -mindepth 1 \\( -type d -o -type f -o -type l \\) -printf '%y %m %P\\0%l\\0' | base64 -w0`,
  );
  const [marker, encoded = ''] = listing.stdout.split('\n');
  if (listing.exitCode !== 0 || marker !== LISTING_MARKER) {
    const reason =
      marker === LISTING_MARKER || listing.exitCode !== 0
        ? listing.stderr.trim()
        : 'the listing is larger than the output limit';
    return failed(`cannot list ${sourcePath} on the server: ${reason}`);
  }
  const fields = Buffer.from(encoded.trim(), 'base64').toString('utf8').split('\0');
  let destination: Awaited<ReturnType<typeof openLocalDirectory>>;
  try {
    destination = await openLocalDirectory(destinationPath, 'destination', { create: true });
  } catch (error) {
    if (error instanceof LocalDirectoryFailure) return failed(error.message);
    throw error;
  }
  const directories = new ArchiveDirectories(destination.handle, undefined);
  const links: { parts: string[]; target: string; name: string }[] = [];
  try {
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const [type, mode, ...rest] = (fields[index] as string).split(' ');
      const name = rest.join(' ');
      const parts = archiveEntryComponents(name);
      const bits = Number.parseInt(mode ?? '644', 8) & 0o777;
      if (type === 'd') directories.setMode(parts, bits, name);
      else if (type === 'l') links.push({ parts, target: fields[index + 1] as string, name });
      else if (type === 'f') {
        const parent = directories.open(parts.slice(0, -1), name);
        const fileName = parts[parts.length - 1] as string;
        refuseReplacing(parent, fileName, name);
        const request: AgentServerRequest = {
          method: 'GET',
          path: AGENT_SERVER_ROUTES.fileDownload,
          query: { path: `${sourcePath.replace(/\/+$/, '')}/${name}` },
          signal,
        };
        const response = await client.send(request);
        if (response.statusCode !== 200) {
          const reply = await client.read(response, request);
          return failed(
            `cannot download ${name}: ${await errorDetail(reply)} (HTTP ${reply.status})`,
          );
        }
        try {
          result.bytes += await writeStreamAtomic({
            source: response.body as unknown as Readable,
            directory: parent,
            name: fileName,
            mode: bits,
          });
        } catch (error) {
          // The body broke off: the connection's failure, not the destination's.
          if (errnoOf(error)?.startsWith('UND_')) throw client.failureOf(error, request);
          throw error;
        }
        result.files += 1;
      }
    }
    for (const { parts, target, name } of links)
      createArchiveSymlink(directories, parts, target, name);
    return { ...result, success: true };
  } catch (error) {
    if (archiveProblemOf(error) !== undefined)
      return failed(`cannot download ${sourcePath}: ${(error as Error).message}`);
    if (!WorkspaceError.isInstance(error) && errnoOf(error) !== undefined) {
      return failed(`cannot write to ${destinationPath}: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    directories.close();
    destination.handle.close();
  }
}
