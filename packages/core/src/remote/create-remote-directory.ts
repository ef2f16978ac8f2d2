import { FILE_BROWSER_ROUTES } from '@agent-workspace/protocol/constants';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';
import { isFileFailureStatus } from './is-file-failure-status.js';

/** Options of {@link createRemoteDirectory}. */
export interface CreateRemoteDirectoryOptions {
  client: AgentServerClient;
  /** Absolute path on the server. */
  path: string;
  signal?: AbortSignal | undefined;
}

/**
 * OpenHands' `POST /api/file/create_directory?path=`: makes the directory and its missing parents
 * on the server (an existing one is fine).
 *
 * @throws WorkspaceError naming `path` with the server's detail: `INVALID_ARGUMENT` (400: a file
 * in the way, a relative path), `FORBIDDEN` (403: permission, confinement), `NOT_SUPPORTED` (404:
 * a server without the route); transport and auth failures as every call
 * (`CONNECTION_ERROR`, `AUTHENTICATION_ERROR`, `SERVER_ERROR`).
 */
export async function createRemoteDirectory({
  client,
  path,
  signal,
}: CreateRemoteDirectoryOptions): Promise<void> {
  const request: AgentServerRequest = {
    method: 'POST',
    path: FILE_BROWSER_ROUTES.createDirectory,
    query: { path },
    signal,
  };
  const reply = await client.call(request);
  if (reply.status >= 200 && reply.status <= 299) return;
  const detail = await errorDetail(reply);
  if (!isFileFailureStatus(reply.status, detail)) throw client.statusError(reply, request);
  const code =
    reply.status === 403
      ? 'FORBIDDEN'
      : reply.status === 404
        ? 'NOT_SUPPORTED'
        : 'INVALID_ARGUMENT';
  throw new WorkspaceError({
    code,
    message:
      code === 'NOT_SUPPORTED'
        ? `the agent-server does not serve ${FILE_BROWSER_ROUTES.createDirectory}`
        : `path cannot be created: ${path}: ${detail}`,
    details: { field: 'path', path, status: reply.status, detail },
  });
}
