import type { FileOperationResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import type { AgentServerClient } from './agent-server-client.js';
import { downloadToFile } from './download-to-file.js';

/** Options of {@link downloadRemoteFile}. */
export interface DownloadRemoteFileOptions {
  client: AgentServerClient;
  /** Absolute path on the server. */
  sourcePath: string;
  /** Absolute path on this machine. */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

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
  const { result } = await downloadToFile({
    client,
    request: {
      method: 'GET',
      path: AGENT_SERVER_ROUTES.fileDownload,
      query: { path: sourcePath },
      signal,
    },
    sourcePath,
    destinationPath,
    notFound: 'file not found in the workspace',
  });
  return result;
}
