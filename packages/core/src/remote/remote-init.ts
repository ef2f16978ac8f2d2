import type { InitState } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { agentServerBaseUrl } from './agent-server-base-url.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';
import { HttpServerClient } from './http-server-client.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';

/** Options of {@link remoteInitState}. */
export interface RemoteInitStateOptions {
  /** The workspace's client (its session key is sent: a server without deferred init wants it). */
  client: AgentServerClient;
  signal?: AbortSignal | undefined;
}

/**
 * `GET /api/init`: the deferred-init state, or `undefined` when the server answers 404 (started
 * without deferred init, or a server without the route). Other statuses are typed errors.
 */
export async function remoteInitState({
  client,
  signal,
}: RemoteInitStateOptions): Promise<InitState | undefined> {
  const request: AgentServerRequest = { method: 'GET', path: AGENT_SERVER_ROUTES.init, signal };
  const reply = await client.call(request);
  if (reply.status === 404) return undefined;
  if (reply.status < 200 || reply.status > 299) throw client.statusError(reply, request);
  const { initStatusWireSchema } = await loadWireSchemas();
  return client.parse(reply, request, initStatusWireSchema).state;
}

/** Options of {@link initializeRemote}. */
export interface InitializeRemoteOptions {
  /** The workspace's client, to tell a server without deferred init from a refused key. */
  client: AgentServerClient;
  /** Base URL of the agent-server. */
  host: string;
  /** The key sent as `X-Init-API-Key` (the workspace's session key). */
  apiKey: string | undefined;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  /** Session keys replacing the server's; omitted: it keeps its start-up keys. */
  sessionApiKeys?: readonly string[] | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * `POST /api/init` with `apiKey` as `X-Init-API-Key`, delivering `sessionApiKeys`; resolves once
 * the server says `ready`. A server initialized before is `ALREADY_EXISTS` (its 400, or a 401
 * while `GET /api/init` says it is past `dormant`); one without deferred init `NOT_SUPPORTED`;
 * a refused key at a dormant server `AUTHENTICATION_ERROR`.
 * Keys are checked first (`INVALID_ARGUMENT` naming `sessionApiKeys`) and never appear in a
 * message: an error echoing one is replaced by one without the server's text.
 */
export async function initializeRemote(options: InitializeRemoteOptions): Promise<void> {
  const { sessionApiKeys, signal } = options;
  const schemas = await loadWireSchemas();
  checkSessionApiKeys(sessionApiKeys, schemas);
  const { INIT_API_KEY_HEADER, initStatusWireSchema } = schemas;
  const { origin, basePath } = agentServerBaseUrl(options.host);
  const client = new HttpServerClient({
    origin,
    basePath,
    peer: 'the agent-server',
    key: { header: INIT_API_KEY_HEADER, value: options.apiKey, name: 'init key', option: 'apiKey' },
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    maxConnections: 1,
  });
  const json = sessionApiKeys === undefined ? {} : { session_api_keys: [...sessionApiKeys] };
  const request: AgentServerRequest = {
    method: 'POST',
    path: AGENT_SERVER_ROUTES.init,
    json,
    signal,
  };
  try {
    const reply = await client.call(request);
    const details = { host: client.host, operation: `POST ${AGENT_SERVER_ROUTES.init}` };
    // Our server checks the init key first: a 401 may mean "initialized with other keys".
    const known = reply.status === 401 ? await stateAfterRefusal(options) : 'dormant';
    if (reply.status === 400 || known === 'ready' || known === 'initializing') {
      throw new WorkspaceError({
        code: 'ALREADY_EXISTS',
        message: `the agent-server at ${client.host} was initialized before (a server initializes once): ${reply.status === 400 ? await errorDetail(reply) : `it is '${known}'`}`,
        details: { ...details, status: reply.status },
      });
    }
    if (reply.status === 404 || known === undefined) {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `the agent-server at ${client.host} was not started with deferred init (--defer-init): there is nothing to initialize`,
        details: { ...details, status: reply.status },
      });
    }
    if (reply.status < 200 || reply.status > 299) throw client.statusError(reply, request);
    const { state } = client.parse(reply, request, initStatusWireSchema);
    if (state !== 'ready') {
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `the agent-server at ${client.host} is '${state}' after POST /api/init, not 'ready'`,
        details: { ...details, state },
      });
    }
  } catch (error) {
    throw withoutKeys(error, [...(sessionApiKeys ?? []), options.apiKey], client.host);
  } finally {
    await client.close();
  }
}

/**
 * The state `GET /api/init` tells after a refused init: `undefined` without deferred init,
 * `dormant` when it cannot be told (the refusal then stands).
 */
async function stateAfterRefusal({
  client,
  signal,
}: InitializeRemoteOptions): Promise<InitState | undefined> {
  return remoteInitState({ client, signal }).catch(() => 'dormant' as const);
}

/** `INVALID_ARGUMENT` naming the entry of `sessionApiKeys` the server would refuse. */
function checkSessionApiKeys(
  keys: readonly string[] | undefined,
  { MAX_INIT_SESSION_API_KEYS, MAX_INIT_SESSION_API_KEY_LENGTH }: WireSchemas,
): void {
  if (keys === undefined) return;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_INIT_SESSION_API_KEYS) {
    throw invalidArgument(
      'sessionApiKeys',
      `must list 1 to ${MAX_INIT_SESSION_API_KEYS} keys (leave it out to keep the start-up keys)`,
    );
  }
  keys.forEach((key: unknown, index) => {
    if (
      typeof key !== 'string' ||
      key.length === 0 ||
      key.length > MAX_INIT_SESSION_API_KEY_LENGTH
    ) {
      throw invalidArgument(
        `sessionApiKeys[${index}]`,
        `must be a string of 1 to ${MAX_INIT_SESSION_API_KEY_LENGTH} characters`,
      );
    }
  });
}

/**
 * `error`, or a plain one of its code when its message or details hold one of `keys` (those of
 * 8 characters or more, as `HttpServerClient` redacts them).
 */
function withoutKeys(error: unknown, keys: Array<string | undefined>, host: string): unknown {
  if (!WorkspaceError.isInstance(error)) return error;
  const text = `${error.message} ${JSON.stringify(error.details)}`;
  const secret = (key: string | undefined): key is string => key !== undefined && key.length >= 8;
  if (!keys.filter(secret).some((key) => text.includes(key))) return error;
  return new WorkspaceError({
    code: error.code,
    message: `the agent-server at ${host} refused POST ${AGENT_SERVER_ROUTES.init} (its answer is left out: it held a session key)`,
    details: { host, operation: `POST ${AGENT_SERVER_ROUTES.init}` },
  });
}
