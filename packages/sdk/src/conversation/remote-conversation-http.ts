import {
  type AgentServerEndpoint,
  hasAgentServer,
  invalidArgument,
  type Workspace,
  WorkspaceError,
} from '@agent-workspace/core';
import { httpStatusError, transportError } from '@agent-workspace/core/internal';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';

/** Longest wait for one HTTP request of a remote conversation (headers and body). */
export const REMOTE_CONVERSATION_REQUEST_TIMEOUT_MS = 60_000;

/** One request of {@link ConversationHttp.request}. */
export interface ConversationHttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path with query, e.g. the events search route of one conversation with `?limit=100`. */
  path: string;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** Statuses other than 2xx that are answers, not errors (e.g. 404 when attaching, 409 on run). */
  accept?: readonly number[];
}

/** Reply of {@link ConversationHttp.request}. */
export interface ConversationHttpReply {
  status: number;
  json: unknown;
}

/**
 * The HTTP side of a remote conversation: JSON requests to one agent-server with the session
 * key header. Failures are `WorkspaceError`s mapped as `RemoteWorkspace` maps them: an
 * unreachable server `CONNECTION_ERROR`, a rejected key `AUTHENTICATION_ERROR`, 404
 * `NOT_FOUND`, 5xx `SERVER_ERROR`, a malformed answer `PROTOCOL_ERROR`.
 */
export class ConversationHttp {
  readonly host: string;
  /** Private, so inspecting the client does not print the key. */
  readonly #apiKey: string | undefined;

  constructor(host: string, apiKey: string | undefined) {
    this.host = host.replace(/\/+$/, '');
    this.#apiKey = apiKey;
  }

  /** The websocket URL of `path` on this host (`http` → `ws`, `https` → `wss`). */
  websocketUrl(path: string): string {
    const url = new URL(this.host);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
    return url.toString();
  }

  /** The session key, for the websocket's first frame. */
  get apiKey(): string | undefined {
    return this.#apiKey;
  }

  async request(request: ConversationHttpRequest): Promise<ConversationHttpReply> {
    const operation = `${request.method} ${request.path.split('?')[0]}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey !== undefined) headers[SESSION_API_KEY_HEADER] = this.#apiKey;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(REMOTE_CONVERSATION_REQUEST_TIMEOUT_MS);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.host}${request.path}`, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal,
      });
      text = await response.text();
    } catch (error) {
      if (request.signal?.aborted) {
        throw new WorkspaceError({
          code: 'ABORTED',
          message: `${operation} was aborted`,
          cause: request.signal.reason,
        });
      }
      throw transportError({ host: this.host, operation, cause: error });
    }
    const json = parseJson(text);
    if (response.ok || request.accept?.includes(response.status)) {
      if (json === undefined && text !== '') throw this.#malformed(operation, text);
      return { status: response.status, json };
    }
    const detail = detailOf(json) ?? (text || `HTTP ${response.status}`);
    if (response.status === 404) {
      throw new WorkspaceError({
        code: 'NOT_FOUND',
        message: `the agent-server at ${this.host} found nothing for ${operation}: ${detail}`,
        details: { host: this.host, operation, status: 404, detail },
      });
    }
    throw httpStatusError({
      host: this.host,
      operation,
      status: response.status,
      detail,
      hasApiKey: this.#apiKey !== undefined,
    });
  }

  /** A `PROTOCOL_ERROR` for an answer that does not have the expected shape. */
  malformed(operation: string, problem: string): WorkspaceError {
    return this.#malformed(operation, problem);
  }

  #malformed(operation: string, problem: string): WorkspaceError {
    return new WorkspaceError({
      code: 'PROTOCOL_ERROR',
      message: `the agent-server at ${this.host} gave a malformed answer to ${operation}: ${problem.slice(0, 200)}`,
      details: { host: this.host, operation },
    });
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function detailOf(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const detail = (json as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  return detail === undefined ? undefined : JSON.stringify(detail);
}

/** The HTTP client of `workspace`'s agent-server; `INVALID_ARGUMENT` when it has none. */
export async function conversationHttpOf(
  workspace: Workspace,
  signal: AbortSignal | undefined,
): Promise<ConversationHttp> {
  if (!hasAgentServer(workspace)) {
    throw invalidArgument(
      'workspace',
      `(${workspace.kind}) does not talk to an agent-server: use LocalConversation or Conversation()`,
    );
  }
  const endpoint: AgentServerEndpoint = await workspace.agentServerEndpoint({ signal });
  return new ConversationHttp(endpoint.host, endpoint.apiKey);
}
