import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Dispatcher, Pool } from 'undici';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { errorDetail, rawDetail, truncateDetail } from './error-detail.js';
import type {
  HttpServerClientOptions,
  HttpServerKey,
  HttpServerReply,
  HttpServerRequest,
  ReplyParser,
} from './http-server-types.js';
import { httpStatusError, type StatusErrorCode } from './http-status-error.js';
import { isZodError } from './is-zod-error.js';
import { type StreamedResponse, sendStreamedRequest } from './send-streamed-request.js';
import { transportError } from './transport-error.js';

/** Shortest key redacted from error bodies (see {@link HttpServerClient}). */
const MIN_REDACTED_KEY_LENGTH = 8;

/**
 * HTTP client of one of our servers (an agent-server, a Runtime API): an undici keep-alive
 * `Pool`, the key header on every request, and one reading of replies into `WorkspaceError`s
 * naming the server. Network failures are `CONNECTION_ERROR`; an aborted signal rethrows its
 * reason when that is a `WorkspaceError` and is `ABORTED` otherwise; an unexpected status is
 * typed by `httpStatusError` (with the server's `statusCodes`); a body that is not JSON or has
 * the wrong shape is `PROTOCOL_ERROR`. The key is kept private, and an echo of it in an error
 * body is redacted (keys of 8 characters or more).
 */
export class HttpServerClient {
  /** Base URL without a trailing slash, as messages name the server. */
  readonly host: string;
  readonly #basePath: string;
  readonly #peer: string;
  /** The undici pool of {@link send}, loaded and made on first use. */
  #pool: Promise<Pool> | undefined;
  readonly #key: HttpServerKey;
  readonly #statusCodes: Readonly<Record<number, StatusErrorCode>> | undefined;
  readonly #origin: string;
  readonly #timeouts: { requestMs: number; connectMs: number };
  readonly #maxConnections: number;
  /** Keep-alive agent of {@link sendStreamed}, made on first use. */
  #agent: HttpAgent | undefined;
  /** Bodies of {@link sendStreamed} still being read, done when they are. */
  readonly #streaming = new Set<Promise<void>>();
  #closed = false;

  constructor(options: HttpServerClientOptions) {
    this.host = `${options.origin}${options.basePath}`;
    this.#basePath = options.basePath;
    this.#peer = options.peer;
    this.#key = { ...options.key };
    this.#statusCodes = options.statusCodes;
    this.#origin = options.origin;
    this.#timeouts = { requestMs: options.requestTimeoutMs, connectMs: options.connectTimeoutMs };
    this.#maxConnections = options.maxConnections;
  }

  /** Sends a request and returns the response with its body unread. */
  async send(request: HttpServerRequest): Promise<Dispatcher.ResponseData> {
    const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
    const headers: Record<string, string> = {};
    if (this.#key.value) headers[this.#key.header] = this.#key.value;
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
      const pool = await this.#openPool(request);
      return await pool.request({
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

  /**
   * Sends a `GET`, or a `POST` with a `raw` body, with `node:http` (same key, timeouts and
   * errors as {@link send}) and returns the response with its body unread: for file transfers,
   * which Node's HTTP client streams with less copying and memory than undici (see
   * `sendStreamedRequest`). Read a reply with {@link read}.
   */
  async sendStreamed(
    request: HttpServerRequest & { method: 'GET' | 'POST' },
  ): Promise<StreamedResponse> {
    if (request.json !== undefined) throw new TypeError('sendStreamed sends raw bodies only');
    const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
    const headers: Record<string, string> = {};
    if (this.#key.value) headers[this.#key.header] = this.#key.value;
    if (request.raw !== undefined) {
      headers['content-type'] = request.raw.contentType;
      if (request.raw.length !== undefined) headers['content-length'] = String(request.raw.length);
    }
    const url = new URL(`${this.#basePath}${request.path}${query}`, this.#origin);
    if (this.#closed) throw this.failureOf(closedError(), request);
    this.#agent ??= new (url.protocol === 'https:' ? HttpsAgent : HttpAgent)({
      keepAlive: true,
      maxSockets: this.#maxConnections,
    });
    // `close` waits until the response came and its body was read (or dropped).
    const sent = sendStreamedRequest({
      url,
      method: request.method,
      headers,
      body: request.raw?.body,
      agent: this.#agent,
      connectTimeoutMs: this.#timeouts.connectMs,
      idleTimeoutMs: request.headersTimeoutMs ?? this.#timeouts.requestMs,
      signal: request.signal,
    });
    const done: Promise<void> = sent
      .then((response) => finished(response.body))
      .then(
        () => void this.#streaming.delete(done),
        () => void this.#streaming.delete(done),
      );
    this.#streaming.add(done);
    try {
      return await sent;
    } catch (error) {
      throw this.failureOf(error, request);
    }
  }

  /**
   * The undici pool, made on first use: a client that only streams downloads never loads undici
   * (a few tens of MB and ms). Throws the failure of a closed client.
   */
  #openPool(request: HttpServerRequest): Promise<Pool> {
    if (this.#pool === undefined && this.#closed) throw this.failureOf(closedError(), request);
    this.#pool ??= import('undici').then(
      ({ Pool }) =>
        new Pool(this.#origin, {
          connections: this.#maxConnections,
          connect: { timeout: this.#timeouts.connectMs },
          headersTimeout: this.#timeouts.requestMs,
          bodyTimeout: this.#timeouts.requestMs,
        }),
    );
    return this.#pool;
  }

  /** Sends a request and reads the whole body. */
  async call(request: HttpServerRequest): Promise<HttpServerReply> {
    return this.read(await this.send(request), request);
  }

  /** Reads the whole body of a response to `request`. */
  async read(
    response: Dispatcher.ResponseData | StreamedResponse,
    request: HttpServerRequest,
  ): Promise<HttpServerReply> {
    let text: string;
    try {
      const { body } = response;
      text = 'text' in body ? await body.text() : await readText(body);
    } catch (error) {
      throw this.failureOf(error, request);
    }
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const retryAfter = response.headers['retry-after'];
    const status = response.statusCode;
    return {
      status,
      json,
      text,
      headers: response.headers,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      ...(status >= 200 && status <= 299 ? {} : { detail: await errorDetail({ json, text }) }),
    };
  }

  /** Sends a request and parses a 2xx JSON body with `parser`; other statuses throw. */
  async json<T>(request: HttpServerRequest, parser: ReplyParser<T>): Promise<T> {
    const reply = await this.call(request);
    if (reply.status < 200 || reply.status > 299) throw this.statusError(reply, request);
    return this.parse(reply, request, parser);
  }

  /** Parses a reply's JSON body with `parser`; a non-JSON body or wrong shape is `PROTOCOL_ERROR`. */
  parse<T>(reply: HttpServerReply, request: HttpServerRequest, parser: ReplyParser<T>): T {
    const operation = operationOf(request);
    const details = { host: this.host, operation, status: reply.status };
    if (reply.json === undefined) {
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `${this.#peer} at ${this.host} answered ${operation} with a body that is not JSON: ${this.#redact(truncateDetail(reply.text))}`,
        details,
      });
    }
    try {
      return typeof parser === 'function' ? parser(reply.json) : parser.parse(reply.json);
    } catch (error) {
      const issues = isZodError(error)
        ? error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
        : [String(error)];
      throw new WorkspaceError({
        code: 'PROTOCOL_ERROR',
        message: `${this.#peer} at ${this.host} answered ${operation} with an unexpected shape: ${this.#redact(issues.join('; '))}`,
        cause: error,
        details,
      });
    }
  }

  /**
   * The typed error for a reply with an unexpected status (see `httpStatusError`); its detail is
   * the one {@link read} took from the body (the raw body for a reply made otherwise).
   */
  statusError(reply: HttpServerReply, request: HttpServerRequest): WorkspaceError {
    return httpStatusError({
      host: this.host,
      peer: this.#peer,
      operation: operationOf(request),
      status: reply.status,
      detail: this.#redact(reply.detail ?? rawDetail(reply.text)),
      hasApiKey: this.#key.value !== undefined,
      keyName: this.#key.name,
      keyOption: this.#key.option,
      retryAfter: reply.retryAfter,
      codes: this.#statusCodes,
    });
  }

  /** The typed error for a failed send or body read. */
  failureOf(error: unknown, request: HttpServerRequest): WorkspaceError {
    const signal = request.signal;
    if (signal?.aborted) {
      return WorkspaceError.isInstance(signal.reason) ? signal.reason : abortedError(signal);
    }
    if (WorkspaceError.isInstance(error)) return error;
    return transportError({
      host: this.host,
      peer: this.#peer,
      operation: operationOf(request),
      cause: error,
    });
  }

  /** Closes the pool and the streaming agent (in-flight requests finish first). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#streaming);
    this.#agent?.destroy();
    const pool = await this.#pool;
    if (pool && !pool.closed) await pool.close();
  }

  /**
   * `text` with every occurrence of the key replaced, should a server echo it. Keys shorter than
   * {@link MIN_REDACTED_KEY_LENGTH} are left: no secret, and replacing them would garble the text.
   */
  #redact(text: string): string {
    const key = this.#key.value;
    if (key === undefined || key.length < MIN_REDACTED_KEY_LENGTH) return text;
    return text.split(key).join(`[${this.#key.name}]`);
  }
}

/** What undici throws for a request on a closed pool, for a client closed before any. */
function closedError(): Error {
  return Object.assign(new Error('client closed'), { code: 'UND_ERR_CLOSED' });
}

/** The whole of `body` as UTF-8 text. */
async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `METHOD /path`, as messages name an operation. */
function operationOf(request: Pick<HttpServerRequest, 'method' | 'path'>): string {
  return `${request.method} ${request.path}`;
}
