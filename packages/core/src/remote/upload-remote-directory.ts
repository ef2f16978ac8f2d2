import {
  AGENT_SERVER_ROUTES,
  DIRECTORY_ARCHIVE_MEDIA_TYPE,
} from '@agent-workspace/protocol/constants';
import {
  LocalDirectoryFailure,
  openLocalDirectory,
} from '../internal/archive/open-local-directory.js';
import { packDirectory } from '../internal/archive/pack-directory.js';
import {
  type DirectoryTransferResult,
  directoryTransferFailure,
} from '../workspace/directory-transfer.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';
import { isFileFailureStatus } from './is-file-failure-status.js';
import { loadWireSchemas } from './load-wire-schemas.js';

/** Options of {@link uploadRemoteDirectory}. */
export interface UploadRemoteDirectoryOptions {
  client: AgentServerClient;
  /** Absolute directory on this machine. */
  sourcePath: string;
  /** Absolute directory on the server (created when missing). */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/**
 * Uploads a local directory as one tar stream with `POST /api/workspace/directory_archive?path=<destination>`
 * (the directory-archive extension), packed lazily from disk (see `packDirectory`: nothing
 * followed, links kept as links), so memory stays flat. The server extracts it atomically file
 * by file and answers what it wrote.
 *
 * File problems are results: a missing or unreadable source, a file that changed while read,
 * and a server refusal naming the destination or an entry (400, 403 not about auth, 404, 409,
 * 413). Transport and auth failures throw (`CONNECTION_ERROR`, `AUTHENTICATION_ERROR`,
 * `SERVER_ERROR`, `PROTOCOL_ERROR`), an aborted signal `ABORTED`.
 */
export async function uploadRemoteDirectory(
  options: UploadRemoteDirectoryOptions,
): Promise<DirectoryTransferResult> {
  const { client, sourcePath, destinationPath, signal } = options;
  const failed = (error: string) =>
    directoryTransferFailure({ sourcePath, destinationPath }, error);
  let source: Awaited<ReturnType<typeof openLocalDirectory>>;
  try {
    source = await openLocalDirectory(sourcePath, 'source');
  } catch (error) {
    if (error instanceof LocalDirectoryFailure) return failed(error.message);
    throw error;
  }
  let packError: Error | undefined;
  const body = packDirectory({ directory: source.handle, signal });
  source.handle.close();
  body.once('error', (error) => {
    packError = error;
  });
  const request: AgentServerRequest = {
    method: 'POST',
    path: AGENT_SERVER_ROUTES.directoryArchive,
    query: { path: destinationPath },
    raw: { body, contentType: DIRECTORY_ARCHIVE_MEDIA_TYPE },
    signal,
  };
  let reply: Awaited<ReturnType<AgentServerClient['call']>>;
  try {
    reply = await client.call(request);
  } catch (error) {
    if (packError !== undefined && !signal?.aborted) {
      return failed(`cannot read ${sourcePath}: ${packError.message}`);
    }
    throw error;
  } finally {
    body.destroy();
  }
  if (reply.status >= 200 && reply.status <= 299) {
    const { directoryArchiveSummaryWireSchema } = await loadWireSchemas();
    const summary = client.parse(reply, request, (json) =>
      directoryArchiveSummaryWireSchema.parse(json),
    );
    return {
      success: true,
      sourcePath,
      destinationPath,
      files: summary.files,
      bytes: summary.bytes,
    };
  }
  const detail = await errorDetail(reply);
  if (isFileFailureStatus(reply.status, detail)) {
    return failed(`cannot upload to ${destinationPath}: ${detail} (HTTP ${reply.status})`);
  }
  throw client.statusError(reply, request);
}
