import type { Readable } from 'node:stream';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { type Dispatcher, Pool } from 'undici';
import { z } from 'zod';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { agentServerBaseUrl } from './agent-server-base-url.js';
import { errorDetail, truncateDetail } from './error-detail.js';
import { httpStatusError } from './http-status-error.js';
import { transportError } from './transport-error.js';

/** Options of {@link AgentServerClient}. */
export interface AgentServerClientOptions {
  /** Base URL, `http(s)://host:port`, optionally with a path prefix. */
  host: string;
  apiKey?: string | undefined;
  /** Longest wait for response headers, and for each body chunk, in milliseconds. */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  /** Cap on pooled keep-alive connections. */
  maxConnections: number;
}

/** One HTTP call to the agent-server. */
export interface AgentServerRequest {
  method: 'GET' | 'POST';
  /** Path below the host, starting with `/`. */
  path: string;
  query?: Record<string, string> | URLSearchParams | undefined;
  /** Sent as a JSON body. */
  json?: unknown;
  /**
   * Sent as a raw body of the given media type (streamed); with `length`, as `Content-Length`
   * (the body must then give exactly that many bytes), otherwise chunked.
   */
  raw?: { body: Readable; contentType: string; length?: number | undefined } | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Longest wait for the response headers of this request, in milliseconds, when it is not the
   * client's `requestTimeoutMs` (a call whose answer comes only once its work is done).
   */
  headersTimeoutMs?: number | undefined;
}

/** A fully read response. */
export interface AgentServerReply {
  status: number;
  /** The parsed JSON body, or `undefined` when it is not JSON. */
  json: unknown;
  /** The raw body text. */
  text: string;
}

/**
 * HTTP client of one agent-server: an undici keep-alive `Pool`, the session key on every
 * request, and typed errors. Network failures are `CONNECTION_ERROR`, an aborted signal rethrows
 * its reason when that is a `WorkspaceError` and is `ABORTED` otherwise.
 */
export class AgentServerClient {
  /** Base URL without a trailing slash. */
  readonly host: string;
  readonly #basePath: string;
  readonly #pool: Pool;
  readonly #headers: Record<string, string>;
  readonly #hasApiKey: boolean;

  constructor(options: AgentServerClientOptions) {
    const { origin, basePath, host } = agentServerBaseUrl(options.host);
    this.#basePath = basePath;
    this.host = host;
    this.#hasApiKey = options.apiKey !== undefined;
    this.#headers = options.apiKey ? { [SESSION_API_KEY_HEADER]: options.apiKey } : {};
    this.#pool = new Pool(origin, {
      connections: options.maxConnections,
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
    });
  }

  /** The websocket URL of `path` (never carrying the key). */
  websocketUrl(path: string): string {
    return `${this.host.replace(/^http/, 'ws')}${path}`;
  }

  /** Sends a request and returns the response with its body unread. */
  async send(request: AgentServerRequest): Promise<Dispatcher.ResponseData> {
    const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
    const headers: Record<string, string> = { ...this.#headers };
    let body: string | Readable | undefined;
    if (request.raw !== undefined) {
      headers['content-type'] = request.raw.contentType;
      if (request.raw.length !== undefined) headers['content-length'] = String(request.raw.length);
      body = request.raw.body;
    }
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    try {
      return await this.#pool.request({
        method: request.method,
        path: `${this.#basePath}${request.path}${query}`,
        headers,
        body,
        signal: request.signal,
        ...(request.headersTimeoutMs === undefined
          ? {}
          : { headersTimeout: request.headersTimeoutMs }),
      });
    } catch (error) {
      throw this.failureOf(error, request);
    }
  }

  /** Sends a request and reads the whole body. */
  async call(request: AgentServerRequest): Promise<AgentServerReply> {
    return this.read(await this.send(request), request);
  }

  /** Reads the whole body of a response to `request`. */
  async read(
    response: Dispatcher.ResponseData,
    request: AgentServerRequest,
  ): Promise<AgentServerReply> {
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw this.failureOf(error, request);
    }
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, json, text };
  }

  /** Sends a request and parses a 2xx JSON body with `parse`; other statuses throw. */
  async json<T>(request: AgentServerRequest, parse: (json: unknown) => T): Promise<T> {
    const reply = await this.call(request);
    if (reply.status < 200 || reply.status > 299) throw this.statusError(reply, request);
    return this.parse(reply, request, parse);
  }

  /** Parses a reply's JSON body with `parse`; a non-JSON body or wrong shape is `PROTOCOL_ERROR`. */
  parse<T>(reply: AgentServerReply, request: AgentServerRequest, parse: (json: unknown) => T): T {
    const operation = operationOf(request);
    if (reply.json === undefined) {
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `the agent-server at ${this.host} answered ${operation} with a body that is not JSON: ${truncateDetail(reply.text)}`,
        details: { host: this.host, operation, status: reply.status },
      });
    }
    try {
      return parse(reply.json);
    } catch (error) {
      const issues =
        error instanceof z.ZodError
          ? error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
          : [String(error)];
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `the agent-server at ${this.host} answered ${operation} with an unexpected shape: ${issues.join('; ')}`,
        cause: error,
        details: { host: this.host, operation, status: reply.status },
      });
    }
  }

  /** The typed error for a reply with an unexpected status (see `httpStatusError`). */
  statusError(reply: AgentServerReply, request: AgentServerRequest): WorkspaceError {
    return httpStatusError({
      host: this.host,
      operation: operationOf(request),
      status: reply.status,
      detail: errorDetail(reply),
      hasApiKey: this.#hasApiKey,
    });
  }

  /** The typed error for a failed send or body read. */
  failureOf(error: unknown, request: AgentServerRequest): WorkspaceError {
    const signal = request.signal;
    if (signal?.aborted) {
      return WorkspaceError.isInstance(signal.reason) ? signal.reason : abortedError(signal);
    }
    if (WorkspaceError.isInstance(error)) return error;
    return transportError({ host: this.host, operation: operationOf(request), cause: error });
  }

  /** Closes the pool (in-flight requests finish first). */
  async close(): Promise<void> {
    await this.#pool.close();
  }
}

/** `METHOD /path`, as messages name an operation. */
function operationOf(request: Pick<AgentServerRequest, 'method' | 'path'>): string {
  return `${request.method} ${request.path}`;
}
