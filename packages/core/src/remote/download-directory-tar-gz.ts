import path from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { CommandResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { shellQuote } from '../internal/process/shell-quote.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { extractDownload } from './download-remote-directory.js';
import { errorDetail } from './error-detail.js';
import { isFileFailureStatus } from './is-file-failure-status.js';
import { rerootWorkspaceArchive } from './reroot-workspace-archive.js';

/** Options of {@link downloadDirectoryTarGz}. */
export interface DownloadDirectoryTarGzOptions {
  client: AgentServerClient;
  /** Runs a shell command on the server (the check for links and unreadable entries). */
  run: (command: string) => Promise<CommandResult>;
  /** Absolute directory on the server. */
  sourcePath: string;
  /** Absolute directory on this machine (created when missing). */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/** Statuses of a server without OpenHands' archive route (an older OpenHands). */
const NO_ARCHIVE_ROUTE = new Set([404, 405, 501]);

/**
 * `downloadDirectory` for a plain OpenHands server: one `GET /api/file/archive?format=tar.gz&
 * use_default_excludes=false`, gunzipped, re-rooted (see {@link rerootWorkspaceArchive}) and
 * extracted as it arrives with the same rules as the directory-archive download.
 *
 * OpenHands' archive is not a faithful copy of every directory, so this answers `undefined`
 * (the caller then lists and downloads file by file) when it would not be one: the directory
 * holds a symbolic link or an entry the server cannot read (the archive silently leaves both
 * out; one `find` command checks first, and a missing directory also goes to the listing,
 * which reports it), the route is missing (404, 405 or 501: the check found the directory, so
 * a 404 is an older OpenHands), the server archived another directory (`X-Archive-Repo-Root`
 * names a repository below the one asked for), or the directory is `/` (OpenHands names the
 * entries after the directory's base name). Git's secrets are never carried: `.git/config`,
 * credential files, `FETCH_HEAD` and `.git/**\/logs/` are left out of a copied repository, as
 * OpenHands means them to be.
 */
export async function downloadDirectoryTarGz(
  options: DownloadDirectoryTarGzOptions,
): Promise<DirectoryTransferResult | undefined> {
  const { client, run, sourcePath, destinationPath, signal } = options;
  // OpenHands names entries after the directory's base name, which `/` lacks.
  if (path.posix.basename(sourcePath) === '') return undefined;
  const check = await run(
    `cd -- ${shellQuote(sourcePath)} && find . \\( -type l -o ! -readable \\) -print -quit`,
  );
  if (check.exitCode !== 0 || check.stdout.trim() !== '') return undefined;
  const query = new URLSearchParams({
    path: sourcePath,
    format: 'tar.gz',
    use_default_excludes: 'false',
  });
  const request: AgentServerRequest = {
    method: 'GET',
    path: AGENT_SERVER_ROUTES.fileArchive,
    query,
    signal,
  };
  const response = await client.send(request);
  if (response.statusCode < 200 || response.statusCode > 299) {
    const reply = await client.read(response, request);
    if (NO_ARCHIVE_ROUTE.has(reply.status)) return undefined;
    const detail = await errorDetail(reply);
    if (isFileFailureStatus(reply.status, detail)) {
      return {
        success: false,
        sourcePath,
        destinationPath,
        files: 0,
        bytes: 0,
        error: `cannot download ${sourcePath}: ${detail} (HTTP ${reply.status})`,
      };
    }
    throw client.statusError(reply, request);
  }
  const root = response.headers['x-archive-repo-root'];
  if (typeof root === 'string' && !sameDirectory(root, sourcePath)) {
    // Dropping the body aborts it; nothing is listening for that error.
    response.body.once('error', () => {});
    response.body.destroy();
    return undefined;
  }
  const gunzip = createGunzip();
  pipeline(response.body, gunzip, () => {});
  return extractDownload({
    client,
    request,
    response,
    tar: rerootWorkspaceArchive(gunzip),
    sourcePath,
    destinationPath,
    signal,
  });
}

/** Whether the percent-encoded `X-Archive-Repo-Root` names the directory asked for. */
function sameDirectory(header: string, sourcePath: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(header);
  } catch {
    return false;
  }
  const trim = (value: string) => path.posix.normalize(value).replace(/(.)\/+$/, '$1');
  return trim(decoded) === trim(sourcePath);
}
