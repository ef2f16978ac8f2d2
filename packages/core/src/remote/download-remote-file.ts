import type { FileOperationResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { checkCopyDestination } from '../internal/files/check-copy-destination.js';
import { CopyFailure } from '../internal/files/copy-failure.js';
import { createCopyParent } from '../internal/files/create-copy-parent.js';
import type { CopyPaths } from '../internal/files/describe-copy-error.js';
import { writeCopyDestination } from '../internal/files/write-copy-destination.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { requestDownload } from './request-download.js';

/** Options of {@link downloadRemoteFile}. */
export interface DownloadRemoteFileOptions {
  client: AgentServerClient;
  /** Absolute path on the server. */
  sourcePath: string;
  /** Absolute path on this machine. */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/** Buffer size of the destination stream. */
const WRITE_CHUNK_BYTES = 1024 * 1024;

/**
 * Downloads a file with `GET /api/file/download?path=<source>`, streaming the body into a
 * temporary file next to the destination and renaming it over the destination (parents are
 * created; readers never see a partial file; a failure leaves no temporary file behind).
 *
 * File problems are results: a missing remote file (404), a directory ("Path is not a file"),
 * other refusals naming the file, a destination that is a directory or sits below a file, and
 * local write errors give `{ success: false, error }`. Transport and auth failures throw
 * (`CONNECTION_ERROR`, also for a body cut off midway; `AUTHENTICATION_ERROR`; `SERVER_ERROR`).
 */
export async function downloadRemoteFile({
  client,
  sourcePath,
  destinationPath,
  signal,
}: DownloadRemoteFileOptions): Promise<FileOperationResult> {
  const paths: CopyPaths = { sourcePath, destinationPath };
  const failed = (error: string): FileOperationResult => ({
    success: false,
    sourcePath,
    destinationPath,
    error,
  });
  try {
    await checkCopyDestination(paths);
  } catch (error) {
    if (error instanceof CopyFailure) return failed(error.message);
    throw error;
  }
  const request: AgentServerRequest = {
    method: 'GET',
    path: AGENT_SERVER_ROUTES.fileDownload,
    query: { path: sourcePath },
    signal,
  };
  const download = await requestDownload({
    client,
    request,
    sourcePath,
    notFound: 'file not found in the workspace',
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
    return { success: true, sourcePath, destinationPath, fileSize };
  } catch (error) {
    if (error instanceof CopyFailure) return failed(error.message);
    throw client.failureOf(error, request);
  } finally {
    if (!written) response.body.destroy();
  }
}
