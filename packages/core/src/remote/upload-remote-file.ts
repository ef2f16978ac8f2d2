import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FileOperationResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { FormData } from 'undici';
import { describeCopyError } from '../internal/files/describe-copy-error.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';
import { isFileFailureStatus } from './is-file-failure-status.js';

/** Options of {@link uploadRemoteFile}. */
export interface UploadRemoteFileOptions {
  client: AgentServerClient;
  /** Absolute path on this machine. */
  sourcePath: string;
  /** Absolute path on the server. */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/**
 * Uploads a local file with `POST /api/file/upload?path=<destination>` (multipart field
 * `file`), streamed from disk through a file-backed `Blob`, so memory stays flat.
 *
 * File problems are results: a missing or non-regular source, and a server refusal naming the
 * file (400, 404, 409, 413, a non-auth 403, OpenHands' 500 "Failed to upload file: …" for e.g. a
 * parent that is a file) give `{ success: false, error }`. Transport and auth failures throw
 * (`CONNECTION_ERROR`, `AUTHENTICATION_ERROR`, `SERVER_ERROR`, `PROTOCOL_ERROR`).
 */
export async function uploadRemoteFile({
  client,
  sourcePath,
  destinationPath,
  signal,
}: UploadRemoteFileOptions): Promise<FileOperationResult> {
  const failed = (error: string): FileOperationResult => ({
    success: false,
    sourcePath,
    destinationPath,
    error,
  });
  let size: number;
  let form: FormData;
  try {
    const stats = await stat(sourcePath);
    if (stats.isDirectory()) return failed(`source is a directory: ${sourcePath}`);
    if (!stats.isFile()) return failed(`source is not a regular file: ${sourcePath}`);
    size = stats.size;
    form = new FormData();
    form.append('file', await openAsBlob(sourcePath), path.basename(sourcePath));
  } catch (error) {
    return failed(describeCopyError(error, 'read-source', { sourcePath, destinationPath }));
  }
  const request: AgentServerRequest = {
    method: 'POST',
    path: AGENT_SERVER_ROUTES.fileUpload,
    query: { path: destinationPath },
    form,
    signal,
  };
  const reply = await client.call(request);
  if (reply.status >= 200 && reply.status <= 299) {
    return { success: true, sourcePath, destinationPath, fileSize: size };
  }
  const detail = errorDetail(reply);
  const openHandsFailure = reply.status === 500 && detail.startsWith('Failed to upload file');
  if (isFileFailureStatus(reply.status, detail) || openHandsFailure) {
    return failed(`cannot upload to ${destinationPath}: ${detail} (HTTP ${reply.status})`);
  }
  throw client.statusError(reply, request);
}
