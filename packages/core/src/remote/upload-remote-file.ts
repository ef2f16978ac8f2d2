import { close, constants, fstat, open, type Stats } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FileOperationResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { describeCopyError } from '../internal/files/describe-copy-error.js';
import {
  type MultipartFileBody,
  multipartFileBody,
} from '../internal/files/multipart-file-body.js';
import type {
  AgentServerClient,
  AgentServerReply,
  AgentServerRequest,
} from './agent-server-client.js';
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
 * `file`), streamed from disk in large chunks (see `multipartFileBody`), so memory stays flat.
 * The file is opened once and checked through its descriptor, so what is sent is what was
 * checked, and its size is announced, so an oversized file gets its 413 before it is sent.
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
  let body: MultipartFileBody;
  let size: number;
  try {
    // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting for a writer.
    const fd = await promisify(open)(sourcePath, constants.O_RDONLY | constants.O_NONBLOCK);
    let stats: Stats;
    try {
      stats = await promisify(fstat)(fd);
    } catch (error) {
      close(fd);
      throw error;
    }
    if (!stats.isFile()) {
      close(fd);
      return failed(
        `source is ${stats.isDirectory() ? 'a directory' : 'not a regular file'}: ${sourcePath}`,
      );
    }
    size = stats.size;
    body = multipartFileBody({ fd, size, field: 'file', fileName: path.basename(sourcePath) });
  } catch (error) {
    return failed(describeCopyError(error, 'read-source', { sourcePath, destinationPath }));
  }
  const request: AgentServerRequest & { method: 'POST' } = {
    method: 'POST',
    path: AGENT_SERVER_ROUTES.fileUpload,
    query: { path: destinationPath },
    raw: { body: body.stream, contentType: body.contentType, length: body.length },
    signal,
  };
  let reply: AgentServerReply;
  try {
    // Node's HTTP client: a client that only transfers files never loads undici.
    reply = await client.read(await client.sendStreamed(request), request);
  } finally {
    // Closes the file when the server answered before reading it all (or not at all).
    body.stream.destroy();
  }
  if (reply.status >= 200 && reply.status <= 299) {
    return { success: true, sourcePath, destinationPath, fileSize: size };
  }
  const detail = await errorDetail(reply);
  const openHandsFailure = reply.status === 500 && detail.startsWith('Failed to upload file');
  if (isFileFailureStatus(reply.status, detail) || openHandsFailure) {
    return failed(`cannot upload to ${destinationPath}: ${detail} (HTTP ${reply.status})`);
  }
  throw client.statusError(reply, request);
}
