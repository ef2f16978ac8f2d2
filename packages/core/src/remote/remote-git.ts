import { WorkspaceError } from '../errors/workspace-error.js';
import type {
  AgentServerClient,
  AgentServerReply,
  AgentServerRequest,
} from './agent-server-client.js';
import { errorDetail } from './error-detail.js';

/** Options of {@link remoteGit}. */
export interface RemoteGitOptions<T> {
  client: AgentServerClient;
  /** Path of the git route, e.g. `AGENT_SERVER_ROUTES.gitChanges`. */
  path: string;
  /** Repository or file the route is asked about (sent as `?path=`). */
  target: string;
  /** More query parameters (`ref`, `commit`, `limit`); undefined ones are left out. */
  query?: Record<string, string | undefined> | undefined;
  /** Validates and converts the JSON answer. */
  parse: (json: unknown) => T;
  /** Given the headers of a successful answer, once it is parsed. */
  onHeaders?: ((headers: AgentServerReply['headers']) => void) | undefined;
  signal: AbortSignal;
}

/**
 * `GET <path>?path=…` of a git route. A 400 carries the server's detail: `INVALID_ARGUMENT`
 * when it is about an argument (`path …`, `ref …`, `commit …`, `sha …`, as our server words them),
 * `GIT_ERROR` otherwise.
 */
export async function remoteGit<T>({
  client,
  path,
  target,
  query = {},
  parse,
  onHeaders,
  signal,
}: RemoteGitOptions<T>): Promise<T> {
  const parameters: Record<string, string> = { path: target };
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) parameters[name] = value;
  }
  const request: AgentServerRequest = { method: 'GET', path, query: parameters, signal };
  const reply = await client.call(request);
  if (reply.status >= 200 && reply.status <= 299) {
    const result = client.parse(reply, request, parse);
    onHeaders?.(reply.headers);
    return result;
  }
  if (reply.status === 400) {
    const detail = await errorDetail(reply);
    const field = /^(path|ref|commit|sha)\b/.exec(detail)?.[1];
    throw new WorkspaceError({
      code: field ? 'INVALID_ARGUMENT' : 'GIT_ERROR',
      message: field ? detail : `git failed on ${target}: ${detail}`,
      details: { path: target, status: reply.status, detail, ...(field && { field }) },
    });
  }
  throw client.statusError(reply, request);
}
