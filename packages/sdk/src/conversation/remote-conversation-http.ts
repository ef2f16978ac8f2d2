import {
  type AgentServerEndpoint,
  hasAgentServer,
  invalidArgument,
  type Workspace,
} from '@agent-workspace/core';
import {
  AgentServerClient,
  type AgentServerRequest,
  REST_REFUSAL_CODES,
} from '@agent-workspace/core/internal';

/**
 * Longest wait for the response headers of one HTTP request of a remote conversation, and
 * between two chunks of its body.
 */
export const REMOTE_CONVERSATION_REQUEST_TIMEOUT_MS = 60_000;
/** Longest wait for a TCP connection to the agent-server. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Pooled keep-alive connections of one conversation (its requests are mostly sequential). */
const MAX_CONNECTIONS = 4;

/** What a remote conversation talks to: the HTTP client of its agent-server and the key. */
export interface ConversationServer {
  /**
   * The agent-server's HTTP client. Refusals of the request itself are typed as the REST routes
   * mean them (404 `NOT_FOUND`, 400/422 `INVALID_ARGUMENT`, 409 `ALREADY_EXISTS`); the rest as
   * for `RemoteWorkspace` (`CONNECTION_ERROR`, `AUTHENTICATION_ERROR`, `SERVER_ERROR`, ...).
   */
  client: AgentServerClient;
  /** The session key, for the events socket's first frame. */
  apiKey: string | undefined;
}

/** The agent-server of `workspace`; `INVALID_ARGUMENT` when it has none. */
export async function conversationServerOf(
  workspace: Workspace,
  signal: AbortSignal | undefined,
): Promise<ConversationServer> {
  if (!hasAgentServer(workspace)) {
    throw invalidArgument(
      'workspace',
      `(${workspace.kind}) does not talk to an agent-server: use LocalConversation or Conversation()`,
    );
  }
  const endpoint: AgentServerEndpoint = await workspace.agentServerEndpoint({ signal });
  const client = new AgentServerClient({
    host: endpoint.host,
    apiKey: endpoint.apiKey,
    requestTimeoutMs: REMOTE_CONVERSATION_REQUEST_TIMEOUT_MS,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    maxConnections: MAX_CONNECTIONS,
    statusCodes: REST_REFUSAL_CODES,
  });
  return { client, apiKey: endpoint.apiKey };
}

/** `work()`, with `server`'s client closed when it fails (a conversation that never was). */
export async function closedOnFailure<T>(
  server: ConversationServer,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await server.client.close();
    throw error;
  }
}

/** Sends `request`, reading the answer; a status neither 2xx nor `accepted` is a typed error. */
export async function expectOk(
  client: AgentServerClient,
  request: AgentServerRequest,
  accepted?: number,
): Promise<void> {
  const reply = await client.call(request);
  const ok = (reply.status >= 200 && reply.status <= 299) || reply.status === accepted;
  if (!ok) throw client.statusError(reply, request);
}
