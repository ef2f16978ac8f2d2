import type { Readable } from 'node:stream';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import type { Dispatcher } from 'undici';
import { archiveProblemOf } from '../internal/archive/archive-entry-error.js';
import { extractTransfer } from '../internal/archive/extract-transfer.js';
import {
  LocalDirectoryFailure,
  openLocalDirectory,
} from '../internal/archive/open-local-directory.js';
import {
  type DirectoryTransferResult,
  directoryTransferFailure,
} from '../workspace/directory-transfer.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { requestDownload } from './request-download.js';

/** Options of {@link downloadRemoteDirectory}. */
export interface DownloadRemoteDirectoryOptions {
  client: AgentServerClient;
  /** Absolute directory on the server. */
  sourcePath: string;
  /** Absolute directory on this machine (created when missing). */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/**
 * Downloads a server directory as one tar stream with `GET /api/workspace/directory_archive?path=<source>` and
 * extracts it as it arrives (memory stays flat) into the local destination, with the same rules
 * the server applies to uploads whatever the server sends: no entry lands outside the
 * destination (absolute names, `..` and paths through a symbolic link are refused), files are
 * written atomically, hard links, devices and FIFOs are refused.
 *
 * File problems are results: a missing or non-directory source, other refusals naming it, a
 * destination that is a file, a refused entry, and local write errors. Transport and auth
 * failures throw (`CONNECTION_ERROR`, also for a stream cut off midway), an aborted signal
 * `ABORTED`.
 */
export async function downloadRemoteDirectory(
  options: DownloadRemoteDirectoryOptions,
): Promise<DirectoryTransferResult> {
  const { client, sourcePath, destinationPath, signal } = options;
  const failed = (error: string) =>
    directoryTransferFailure({ sourcePath, destinationPath }, error);
  const request: AgentServerRequest = {
    method: 'GET',
    path: AGENT_SERVER_ROUTES.directoryArchive,
    query: { path: sourcePath },
    signal,
  };
  const download = await requestDownload({
    client,
    request,
    sourcePath,
    notFound: 'directory not found in the workspace',
  });
  if (download.failure !== undefined) return failed(download.failure);
  const { response } = download;
  return extractDownload({
    client,
    request,
    response,
    tar: response.body,
    sourcePath,
    destinationPath,
    signal,
  });
}

/** Options of {@link extractDownload}. */
export interface ExtractDownloadOptions {
  client: AgentServerClient;
  /** The download's request, for transport errors. */
  request: AgentServerRequest;
  /** The download's response; its body is destroyed when the extraction ends. */
  response: Dispatcher.ResponseData;
  /** The tar stream to extract (the body itself, or a stream made from it). */
  tar: Readable;
  sourcePath: string;
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/**
 * Extracts a downloaded directory's tar stream into the local destination (created when
 * missing): archive refusals and local write errors are failure results, a broken or aborted
 * stream throws the client's transport failure.
 */
export async function extractDownload(
  options: ExtractDownloadOptions,
): Promise<DirectoryTransferResult> {
  const { client, request, response, tar, sourcePath, destinationPath, signal } = options;
  const failed = (error: string) =>
    directoryTransferFailure({ sourcePath, destinationPath }, error);
  let destination: Awaited<ReturnType<typeof openLocalDirectory>> | undefined;
  try {
    destination = await openLocalDirectory(destinationPath, 'destination', { create: true });
    return await extractTransfer({
      source: tar,
      destination: destination.handle,
      paths: { sourcePath, destinationPath },
      signal,
    });
  } catch (error) {
    if (error instanceof LocalDirectoryFailure) return failed(error.message);
    if (signal?.aborted) throw client.failureOf(error, request);
    const problem = archiveProblemOf(error);
    // A stream that broke off is the transport's failure, not the archive's.
    if (problem !== undefined && problem !== 'malformed') {
      return failed(`cannot download ${sourcePath}: ${(error as Error).message}`);
    }
    if (isLocalWriteError(error)) {
      return failed(`cannot write to ${destinationPath}: ${(error as Error).message}`);
    }
    throw client.failureOf(error, request);
  } finally {
    tar.destroy();
    response.body.destroy();
    destination?.handle.close();
  }
}

/** A file-system error of this machine (the destination), as opposed to the connection. */
function isLocalWriteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ECONNRESET' && code !== 'EPIPE'
  );
}
