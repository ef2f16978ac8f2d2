import { timeoutSignal } from '@agent-workspace/core/internal';
import { type Dispatcher, request } from 'undici';
import { AUTH } from './server-process.js';

export {
  openSocket,
  parseResponse,
  type RawExchange,
  type RawExchangeOptions,
  type RawResponse,
  rawExchange,
  readExchange,
  requestHead,
} from '@agent-workspace/agent-server/testing';

/** An HTTP answer with its body read. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON; `undefined` when it is not JSON. */
  json: unknown;
}

/** Options of {@link call}. */
export interface CallOptions {
  method?: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array | NodeJS.ReadableStream;
  /** Upper bound for the whole exchange ("answered at all"), default 15 s. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
}

/**
 * One HTTP request with undici; the body is read whole. The connection is closed afterwards
 * (`Connection: close` unless the caller says otherwise), so the suite never holds idle
 * connections that would blur the server's descriptor counts.
 */
export async function call(url: string, options: CallOptions = {}): Promise<Answer> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: { connection: 'close', ...options.headers },
    body: options.body as never,
    signal: timeoutSignal({ timeoutMs, signal: options.signal }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: parseJson(text) };
}

/** Parses JSON text; `undefined` when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The framing of a one-file multipart body: `head`, then the file's bytes, then `tail`. */
export interface MultipartFraming {
  contentType: string;
  head: Buffer;
  tail: Buffer;
}

/** Multipart framing of one part named `field` (default `file`). */
export function multipartFraming(field = 'file', filename = 'upload.bin'): MultipartFraming {
  const boundary = `----reliability${Math.random().toString(16).slice(2)}`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

/** A complete multipart body holding `content` as the part `file`. */
export function multipartBody(content: Buffer | string, field = 'file') {
  const framing = multipartFraming(field);
  return {
    contentType: framing.contentType,
    body: Buffer.concat([framing.head, Buffer.from(content), framing.tail]),
  };
}

/** `/api/file/upload?path=<target>` with the path encoded. */
export function uploadTarget(target: string): string {
  return `/api/file/upload?${new URLSearchParams({ path: target })}`;
}

/** `/api/file/download?path=<target>` with the path encoded. */
export function downloadTarget(target: string): string {
  return `/api/file/download?${new URLSearchParams({ path: target })}`;
}

/**
 * Options of an authenticated call that keeps its connection open on `dispatcher` (a pool the
 * suite closes), 30 s unless `extra` says otherwise.
 */
export function keepAliveCall(dispatcher: Dispatcher, extra: CallOptions = {}): CallOptions {
  return {
    dispatcher,
    timeoutMs: 30_000,
    ...extra,
    headers: { ...AUTH, connection: 'keep-alive', ...extra.headers },
  };
}

/** Names a file route must list and create verbatim. */
export const HOSTILE_NAMES: readonly string[] = [
  'new\nline',
  'quote"and\\backslash',
  'percent%2F..%00',
  'ünïcödé-名前-🙂',
  ' leading space',
  '-dash',
  '*?[glob]',
];
