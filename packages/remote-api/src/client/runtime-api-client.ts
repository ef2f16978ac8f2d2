import { invalidArgument } from '@agent-workspace/core';
import {
  HttpServerClient,
  type HttpServerRequest,
  positiveOption,
  REST_REFUSAL_CODES,
  type ReplyParser,
  type StatusErrorCode,
} from '@agent-workspace/core/internal';
import {
  RUNTIME_API_KEY_HEADER,
  RUNTIME_API_ROUTES,
  type RuntimeSession,
  type RuntimeSnapshot,
  runtimeSessionFromWire,
  runtimeSessionListWireSchema,
  runtimeSessionPath,
  runtimeSnapshotFromWire,
  runtimeSnapshotListWireSchema,
  runtimeSnapshotPath,
  runtimeSnapshotRemovedWireSchema,
  runtimeStoppedWireSchema,
  type StartRuntimeRequestWire,
} from '@agent-workspace/protocol';
import { runtimeApiBaseUrl } from './runtime-api-base-url.js';
import { snapshotStatusError } from './snapshot-status-error.js';

/** Default longest wait for response headers, and between body chunks, in milliseconds. */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default longest wait for a TCP connection, in milliseconds. */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Pooled keep-alive connections to the Runtime API. */
const MAX_CONNECTIONS = 8;
/**
 * How the Runtime API's statuses read: REST refusals (400/422 `INVALID_ARGUMENT`, 404
 * `NOT_FOUND`, 409 `ALREADY_EXISTS`), 403 always about the key, and 503 always busy.
 */
const RUNTIME_API_STATUS_CODES: Readonly<Record<number, StatusErrorCode>> = {
  ...REST_REFUSAL_CODES,
  403: 'AUTHENTICATION_ERROR',
  503: 'RESOURCE_EXHAUSTED',
};

/** Options of {@link RuntimeApiClient}. */
export interface RuntimeApiClientOptions {
  /** Base URL of the Runtime API, e.g. `http://127.0.0.1:3000` (a path prefix is kept). */
  url: string;
  /** The Runtime API key: sent as `X-API-Key` on every request, and to nobody else. */
  apiKey: string;
  /** Longest wait for response headers and between body chunks. Default 60 000 ms. */
  requestTimeoutMs?: number | undefined;
  /** Longest wait for a TCP connection. Default 10 000 ms. */
  connectTimeoutMs?: number | undefined;
}

/** Options of every {@link RuntimeApiClient} call. */
export interface RuntimeApiCallOptions {
  /** Aborting ends the call with `ABORTED` (or the signal's own `WorkspaceError` reason). */
  signal?: AbortSignal | undefined;
}

/** Options of {@link RuntimeApiClient.takeSnapshot}. */
export interface TakeRuntimeSnapshotOptions extends RuntimeApiCallOptions {
  /** The snapshot's name (1 to 200 characters, no control character); default the session id. */
  name?: string | undefined;
}

/**
 * A typed client of a Runtime API (the OpenHands runtime API that provisions sandboxes), on an
 * `HttpServerClient` of its own (core's reading of replies, shared with the agent-server
 * client). The key goes in `X-API-Key` on every request and nowhere else: never in an
 * error, a message or an enumerable property, and never the session key header. The session key
 * of each returned {@link RuntimeSession} is a non-enumerable property, so logging a session
 * does not print it.
 *
 * Errors name the Runtime API: 401/403 → `AUTHENTICATION_ERROR`, 404 → `NOT_FOUND`, 409 →
 * `ALREADY_EXISTS`, 400/422 → `INVALID_ARGUMENT` (the server's detail), 429/503 →
 * `RESOURCE_EXHAUSTED` (`details.retryAfterMs`), other 5xx → `SERVER_ERROR`, no answer →
 * `CONNECTION_ERROR`, a malformed answer → `PROTOCOL_ERROR`. An echo of the key in an error body
 * is redacted.
 *
 * @example
 * ```ts
 * await using runtime = new RuntimeApiClient({
 *   url: 'http://127.0.0.1:3000',
 *   apiKey: process.env.RUNTIME_API_KEY ?? '',
 * });
 * for (const session of await runtime.listSessions()) console.log(session.sessionId, session.status);
 * ```
 */
export class RuntimeApiClient implements AsyncDisposable {
  /** Base URL of the Runtime API, without a trailing slash. */
  readonly url: string;
  readonly #http: HttpServerClient;

  /** Validates the options (`INVALID_ARGUMENT` naming the field); connects on the first call. */
  constructor(options: RuntimeApiClientOptions) {
    const base = typeof options.url === 'string' ? runtimeApiBaseUrl(options.url) : undefined;
    if (typeof base !== 'object') {
      throw invalidArgument('url', base ?? 'must be an http(s) URL');
    }
    if (typeof options.apiKey !== 'string' || !/^[\x21-\x7e]+$/.test(options.apiKey)) {
      throw invalidArgument('apiKey', 'must be a non-empty string of printable ASCII');
    }
    const requestTimeoutMs = positiveOption(
      options.requestTimeoutMs,
      DEFAULT_REQUEST_TIMEOUT_MS,
      'requestTimeoutMs',
    );
    this.url = base.url;
    this.#http = new HttpServerClient({
      origin: base.origin,
      basePath: base.basePath,
      peer: 'the Runtime API',
      key: {
        header: RUNTIME_API_KEY_HEADER,
        value: options.apiKey,
        name: 'runtime API key',
        option: 'runtimeApiKey',
      },
      requestTimeoutMs,
      connectTimeoutMs: positiveOption(
        options.connectTimeoutMs,
        DEFAULT_CONNECT_TIMEOUT_MS,
        'connectTimeoutMs',
      ),
      maxConnections: MAX_CONNECTIONS,
      statusCodes: RUNTIME_API_STATUS_CODES,
    });
  }

  /** `GET /sessions/{id}`: the session with its agent-server URL and key, `undefined` on 404. */
  async getSession(
    sessionId: string,
    { signal }: RuntimeApiCallOptions = {},
  ): Promise<RuntimeSession | undefined> {
    const request: HttpServerRequest = {
      method: 'GET',
      path: runtimeSessionPath(sessionId),
      signal,
    };
    const reply = await this.#http.call(request);
    if (reply.status === 404) return undefined;
    if (reply.status < 200 || reply.status > 299) throw this.#http.statusError(reply, request);
    return this.#http.parse(reply, request, sessionFromWire);
  }

  /** `POST /start`: starts a session; it is usually not ready yet (see `podStatus`). */
  async start(
    body: StartRuntimeRequestWire,
    { signal }: RuntimeApiCallOptions = {},
  ): Promise<RuntimeSession> {
    return this.#http.json(
      { method: 'POST', path: RUNTIME_API_ROUTES.start, json: body, signal },
      sessionFromWire,
    );
  }

  /** `POST /pause`: suspends the session; its files stay. */
  async pause(runtimeId: string, { signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSession> {
    return this.#byRuntimeId(RUNTIME_API_ROUTES.pause, runtimeId, signal, sessionFromWire);
  }

  /** `POST /resume`: resumes a paused session; its URL may change. */
  async resume(runtimeId: string, { signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSession> {
    return this.#byRuntimeId(RUNTIME_API_ROUTES.resume, runtimeId, signal, sessionFromWire);
  }

  /** `POST /stop`: removes the session's sandbox and what it holds (also when already gone). */
  async stop(runtimeId: string, { signal }: RuntimeApiCallOptions = {}): Promise<void> {
    await this.#byRuntimeId(RUNTIME_API_ROUTES.stop, runtimeId, signal, runtimeStoppedWireSchema);
  }

  /** `GET /sessions`: every session the Runtime API knows, without keys. */
  async listSessions({ signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSession[]> {
    return this.#http.json({ method: 'GET', path: RUNTIME_API_ROUTES.sessions, signal }, (json) =>
      runtimeSessionListWireSchema.parse(json).sessions.map(sessionFromWire),
    );
  }

  /**
   * `POST /snapshots` (ours): commits the filesystem of the session `runtimeId` (running or
   * paused; a paused one stays paused). `NOT_FOUND` for an unknown runtime id,
   * `WORKSPACE_OCCUPIED` for a stopped session, `NOT_SUPPORTED` on a backend without snapshots
   * (Swarm) or a Runtime API without them (OpenHands).
   */
  async takeSnapshot(
    runtimeId: string,
    { name, signal }: TakeRuntimeSnapshotOptions = {},
  ): Promise<RuntimeSnapshot> {
    const json = { runtime_id: runtimeId, ...(name !== undefined && { name }) };
    return this.#snapshotCall(
      { method: 'POST', path: RUNTIME_API_ROUTES.snapshots, json, signal },
      runtimeSnapshotFromWire,
    );
  }

  /** `GET /snapshots` (ours): the snapshots of the Runtime API's namespace, newest first. */
  async listSnapshots({ signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSnapshot[]> {
    return this.#snapshotCall(
      { method: 'GET', path: RUNTIME_API_ROUTES.snapshots, signal },
      (json) => runtimeSnapshotListWireSchema.parse(json).snapshots.map(runtimeSnapshotFromWire),
    );
  }

  /**
   * `DELETE /snapshots/{id}` (ours): removes a snapshot. `NOT_FOUND` for an unknown id,
   * `WORKSPACE_OCCUPIED` while a session started from it exists (stop it first).
   */
  async removeSnapshot(snapshotId: string, { signal }: RuntimeApiCallOptions = {}): Promise<void> {
    await this.#snapshotCall(
      { method: 'DELETE', path: runtimeSnapshotPath(snapshotId), signal },
      runtimeSnapshotRemovedWireSchema,
    );
  }

  /** Closes the connection pool (calls in flight finish first). Idempotent. */
  async close(): Promise<void> {
    await this.#http.close();
  }

  /** Calls {@link RuntimeApiClient.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** A snapshot route's 2xx answer parsed with `parser`; refusals read by `snapshotStatusError`. */
  async #snapshotCall<T>(request: HttpServerRequest, parser: ReplyParser<T>): Promise<T> {
    const reply = await this.#http.call(request);
    if (reply.status < 200 || reply.status > 299) {
      throw snapshotStatusError(this.#http.statusError(reply, request), reply.status);
    }
    return this.#http.parse(reply, request, parser);
  }

  /** `POST <path>` with `{"runtime_id": …}`, its 2xx answer parsed with `parser`. */
  #byRuntimeId<T>(
    path: string,
    runtimeId: string,
    signal: AbortSignal | undefined,
    parser: ReplyParser<T>,
  ): Promise<T> {
    return this.#http.json(
      { method: 'POST', path, json: { runtime_id: runtimeId }, signal },
      parser,
    );
  }
}

/** A session from wire JSON, its session key made non-enumerable. */
function sessionFromWire(json: unknown): RuntimeSession {
  const session = runtimeSessionFromWire(json);
  const { sessionApiKey } = session;
  delete session.sessionApiKey;
  if (sessionApiKey !== undefined) {
    Object.defineProperty(session, 'sessionApiKey', { value: sessionApiKey, enumerable: false });
  }
  return session;
}
