import type { Readable } from 'node:stream';
import type { StatusErrorCode } from './http-status-error.js';

/** The key an `HttpServerClient` sends on every request. */
export interface HttpServerKey {
  /** Header that carries it, e.g. the protocol's `SESSION_API_KEY_HEADER`. */
  header: string;
  /** The key; none is sent when `undefined` or empty. */
  value: string | undefined;
  /** The key as messages name it, e.g. `session API key`; an echo of it shows as `[name]`. */
  name: string;
  /** The option that sets it, for messages, e.g. `apiKey`. */
  option: string;
}

/** Options of `HttpServerClient`. */
export interface HttpServerClientOptions {
  /** `http(s)://host:port` of the server. */
  origin: string;
  /** Path prefix of every route, without a trailing slash (`''` when there is none). */
  basePath: string;
  /** What the server is, for messages, e.g. `the agent-server`, `the Runtime API`. */
  peer: string;
  key: HttpServerKey;
  /** Longest wait for response headers, and for each body chunk, in milliseconds. */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  /** Cap on pooled keep-alive connections. */
  maxConnections: number;
  /** Codes for statuses this server uses its own way (see `httpStatusError`). */
  statusCodes?: Readonly<Record<number, StatusErrorCode>> | undefined;
}

/** One HTTP call. */
export interface HttpServerRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base URL, starting with `/`. */
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
export interface HttpServerReply {
  status: number;
  /** The parsed JSON body, or `undefined` when it is not JSON. */
  json: unknown;
  /** The raw body text. */
  text: string;
  /** The response headers, by lower-case name. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The `Retry-After` header, when there is one. */
  retryAfter?: string | undefined;
  /**
   * For a status outside 200–299, the server's error detail (see `errorDetail`), read with the
   * body so that {@link HttpServerClient.statusError} needs no schema of its own.
   */
  detail?: string | undefined;
}

/** Checks and converts a JSON body: a zod schema or a function that throws on a wrong shape. */
export type ReplyParser<T> = { parse(json: unknown): T } | ((json: unknown) => T);
