import { abortedError, invalidArgument, WorkspaceError } from '@agent-workspace/core';
import { errorDetail, positiveOption, transportError } from '@agent-workspace/core/internal';
import {
  RUNTIME_API_KEY_HEADER,
  RUNTIME_API_ROUTES,
  type RuntimeSession,
  runtimeSessionFromWire,
  runtimeSessionListWireSchema,
  runtimeSessionPath,
  runtimeStoppedWireSchema,
  type StartRuntimeRequestWire,
} from '@agent-workspace/protocol';
import { Pool } from 'undici';
import { z } from 'zod';
import { runtimeApiBaseUrl } from './runtime-api-base-url.js';
import { runtimeApiStatusError } from './runtime-api-status-error.js';

/** Default longest wait for response headers, and between body chunks, in milliseconds. */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default longest wait for a TCP connection, in milliseconds. */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Pooled keep-alive connections to the Runtime API. */
const MAX_CONNECTIONS = 8;
/** What stands in for the key wherever a server might have echoed it. */
const REDACTED = '[runtime API key]';

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

/** One request to the Runtime API. */
interface RuntimeApiRequest {
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  signal: AbortSignal | undefined;
}

/** A fully read response. */
interface RuntimeApiReply {
  status: number;
  json: unknown;
  text: string;
  retryAfter: string | undefined;
}

/**
 * A typed client of a Runtime API (the OpenHands runtime API that provisions sandboxes), on its
 * own undici pool. The key goes in `X-API-Key` on every request and nowhere else: never in an
 * error, a message or an enumerable property, and never the session key header. The session key
 * of each returned {@link RuntimeSession} is a non-enumerable property, so logging a session
 * does not print it.
 *
 * Errors name the Runtime API: 401/403 → `AUTHENTICATION_ERROR`, 404 → `NOT_FOUND`, 409 →
 * `ALREADY_EXISTS`, 400/422 → `INVALID_ARGUMENT` (the server's detail), 429/503 →
 * `RESOURCE_EXHAUSTED` (`details.retryAfterMs`), other 5xx → `SERVER_ERROR`, no answer →
 * `CONNECTION_ERROR`, a malformed answer → `PROTOCOL_ERROR`.
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
  readonly #basePath: string;
  readonly #apiKey: string;
  readonly #pool: Pool;

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
    this.#basePath = base.basePath;
    this.#apiKey = options.apiKey;
    this.#pool = new Pool(base.origin, {
      connections: MAX_CONNECTIONS,
      connect: {
        timeout: positiveOption(
          options.connectTimeoutMs,
          DEFAULT_CONNECT_TIMEOUT_MS,
          'connectTimeoutMs',
        ),
      },
      headersTimeout: requestTimeoutMs,
      bodyTimeout: requestTimeoutMs,
    });
  }

  /** `GET /sessions/{id}`: the session with its agent-server URL and key, `undefined` on 404. */
  async getSession(
    sessionId: string,
    { signal }: RuntimeApiCallOptions = {},
  ): Promise<RuntimeSession | undefined> {
    const request: RuntimeApiRequest = {
      method: 'GET',
      path: runtimeSessionPath(sessionId),
      signal,
    };
    const reply = await this.#call(request);
    if (reply.status === 404) return undefined;
    return this.#expect(reply, request, sessionFromWire);
  }

  /** `POST /start`: starts a session; it is usually not ready yet (see `podStatus`). */
  async start(
    body: StartRuntimeRequestWire,
    { signal }: RuntimeApiCallOptions = {},
  ): Promise<RuntimeSession> {
    return this.#session({ method: 'POST', path: RUNTIME_API_ROUTES.start, json: body, signal });
  }

  /** `POST /pause`: suspends the session; its files stay. */
  async pause(runtimeId: string, { signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSession> {
    return this.#session(byRuntimeId(RUNTIME_API_ROUTES.pause, runtimeId, signal));
  }

  /** `POST /resume`: resumes a paused session; its URL may change. */
  async resume(runtimeId: string, { signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSession> {
    return this.#session(byRuntimeId(RUNTIME_API_ROUTES.resume, runtimeId, signal));
  }

  /** `POST /stop`: removes the session's sandbox and what it holds (also when already gone). */
  async stop(runtimeId: string, { signal }: RuntimeApiCallOptions = {}): Promise<void> {
    const request = byRuntimeId(RUNTIME_API_ROUTES.stop, runtimeId, signal);
    this.#expect(await this.#call(request), request, (json) =>
      runtimeStoppedWireSchema.parse(json),
    );
  }

  /** `GET /sessions`: every session the Runtime API knows, without keys. */
  async listSessions({ signal }: RuntimeApiCallOptions = {}): Promise<RuntimeSession[]> {
    const request: RuntimeApiRequest = { method: 'GET', path: RUNTIME_API_ROUTES.sessions, signal };
    return this.#expect(await this.#call(request), request, (json) =>
      runtimeSessionListWireSchema.parse(json).sessions.map(sessionFromWire),
    );
  }

  /** Closes the connection pool (calls in flight finish first). Idempotent. */
  async close(): Promise<void> {
    if (!this.#pool.closed) await this.#pool.close();
  }

  /** Calls {@link RuntimeApiClient.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #session(request: RuntimeApiRequest): Promise<RuntimeSession> {
    return this.#expect(await this.#call(request), request, sessionFromWire);
  }

  /** Sends `request` and reads the whole response. */
  async #call(request: RuntimeApiRequest): Promise<RuntimeApiReply> {
    const headers: Record<string, string> = {
      [RUNTIME_API_KEY_HEADER]: this.#apiKey,
      accept: 'application/json',
    };
    let body: string | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    try {
      const response = await this.#pool.request({
        method: request.method,
        path: `${this.#basePath}${request.path}`,
        headers,
        body,
        signal: request.signal,
      });
      const text = await response.body.text();
      let json: unknown;
      try {
        json = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const retryAfter = response.headers['retry-after'];
      return {
        status: response.statusCode,
        json,
        text,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      };
    } catch (error) {
      const signal = request.signal;
      if (signal?.aborted) {
        throw WorkspaceError.isInstance(signal.reason) ? signal.reason : abortedError(signal);
      }
      throw transportError({
        host: this.url,
        peer: 'the Runtime API',
        operation: operationOf(request),
        cause: error,
      });
    }
  }

  /** Parses a 2xx reply with `parse`; other statuses and malformed bodies throw. */
  #expect<T>(reply: RuntimeApiReply, request: RuntimeApiRequest, parse: (json: unknown) => T): T {
    const operation = operationOf(request);
    if (reply.status < 200 || reply.status > 299) {
      throw runtimeApiStatusError({
        url: this.url,
        operation,
        status: reply.status,
        detail: this.#redact(errorDetail(reply)),
        retryAfter: reply.retryAfter,
      });
    }
    try {
      return parse(reply.json);
    } catch (error) {
      const issues =
        error instanceof z.ZodError
          ? error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
          : ['the body is not JSON'];
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `the Runtime API at ${this.url} answered ${operation} with an unexpected body: ${issues.join('; ')}`,
        details: { url: this.url, operation, status: reply.status },
      });
    }
  }

  /** `text` with every occurrence of the key replaced, should a server echo it. */
  #redact(text: string): string {
    return text.split(this.#apiKey).join(REDACTED);
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

function byRuntimeId(
  path: string,
  runtimeId: string,
  signal: AbortSignal | undefined,
): RuntimeApiRequest {
  return { method: 'POST', path, json: { runtime_id: runtimeId }, signal };
}

/** `METHOD /path`, as messages name an operation. */
function operationOf(request: RuntimeApiRequest): string {
  return `${request.method} ${request.path}`;
}
