import type { IncomingHttpHeaders } from 'node:http';
import type { FileOperationResult } from '@agent-workspace/protocol';
import { checkCopyDestination } from '../internal/files/check-copy-destination.js';
import { CopyFailure } from '../internal/files/copy-failure.js';
import { createCopyParent } from '../internal/files/create-copy-parent.js';
import type { CopyPaths } from '../internal/files/describe-copy-error.js';
import { writeCopyDestination } from '../internal/files/write-copy-destination.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { requestDownload } from './request-download.js';

/** Options of {@link downloadToFile}. */
export interface DownloadToFileOptions {
  client: AgentServerClient;
  /** The `GET` whose body is the file's content (its `signal` aborts the download). */
  request: AgentServerRequest & { method: 'GET' };
  /** The server path, for results and messages. */
  sourcePath: string;
  /** Absolute path on this machine. */
  destinationPath: string;
  /** What a 404 means, e.g. `file not found in the workspace`. */
  notFound: string;
}

/** What {@link downloadToFile} did, with the response's headers once the file is written. */
export interface DownloadToFileOutcome {
  result: FileOperationResult;
  headers?: IncomingHttpHeaders | undefined;
}

/**
 * Bytes the destination stream buffers before the body has to wait: a bound on this side's
 * buffering, with the file written in few large `writev`s.
 */
const WRITE_CHUNK_BYTES = 1024 * 1024;

/**
 * Downloads a `GET`'s body into a local file: the destination is checked before the request is
 * sent, then the body streams into a temporary file next to it that is renamed over it (parents
 * are created; readers never see a partial file; a failure leaves no temporary file behind).
 *
 * File problems are failure results: a refusal naming the source (404 as `notFound`), a
 * destination that is a directory or sits below a file, local write errors. Transport and auth
 * failures throw (`CONNECTION_ERROR`, also for a body cut off midway; `AUTHENTICATION_ERROR`;
 * `SERVER_ERROR`).
 */
export async function downloadToFile(
  options: DownloadToFileOptions,
): Promise<DownloadToFileOutcome> {
  const { client, request, sourcePath, destinationPath, notFound } = options;
  const paths: CopyPaths = { sourcePath, destinationPath };
  const failed = (error: string): DownloadToFileOutcome => ({
    result: { success: false, sourcePath, destinationPath, error },
  });
  try {
    await checkCopyDestination(paths);
  } catch (error) {
    if (error instanceof CopyFailure) return failed(error.message);
    throw error;
  }
  // Node's HTTP client: undici's parser copies every chunk, costing memory and speed here.
  const download = await requestDownload({
    client,
    request,
    sourcePath,
    notFound,
    send: () => client.sendStreamed(request),
  });
  if (download.failure !== undefined) return failed(download.failure);
  const { response } = download;
  let written = false;
  try {
    await createCopyParent(paths);
    // A write error on our side is a result; a body that broke off is a transport failure.
    const fileSize = await writeCopyDestination({
      source: response.body,
      paths,
      highWaterMark: WRITE_CHUNK_BYTES,
    });
    written = true;
    return {
      result: { success: true, sourcePath, destinationPath, fileSize },
      headers: response.headers,
    };
  } catch (error) {
    if (error instanceof CopyFailure) return failed(error.message);
    throw client.failureOf(error, request);
  } finally {
    if (!written) response.body.destroy();
  }
}
