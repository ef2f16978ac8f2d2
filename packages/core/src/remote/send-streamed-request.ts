import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A response whose body is Node's own `IncomingMessage`, unread. */
export interface StreamedResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body; destroy it to drop the rest (the connection is then not reused). */
  body: IncomingMessage;
}

/** Options of {@link sendStreamedRequest}. */
export interface SendStreamedRequestOptions {
  /** The full URL, `http:` or `https:`. */
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Streamed as the request body (its length and type are in `headers`); none by default. */
  body?: Readable | undefined;
  /** Keep-alive agent of the URL's protocol. */
  agent: http.Agent;
  /** Longest wait for the connection, in milliseconds. */
  connectTimeoutMs: number;
  /** Longest wait for the response headers, and for each body chunk, in milliseconds. */
  idleTimeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** A timeout as undici names it, so `transportError` words it the same way. */
function timeoutError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Sends a request with `node:http` (or `https`), streaming `body` if any, and resolves with the
 * response once its headers came, the body unread. For large bodies: Node's parser hands out
 * slices of the socket's reads, where undici copies every chunk through its WebAssembly parser
 * and a stream of its own, which costs a 256 MiB download tens of MB of peak memory and much of
 * its speed; and a client that only transfers files never loads undici.
 *
 * Timeouts destroy the request with undici's codes (`UND_ERR_CONNECT_TIMEOUT`,
 * `UND_ERR_HEADERS_TIMEOUT`, `UND_ERR_BODY_TIMEOUT`); `signal` aborts it with an `AbortError`.
 */
export function sendStreamedRequest(
  options: SendStreamedRequestOptions,
): Promise<StreamedResponse> {
  const { url, method, headers, body, agent, connectTimeoutMs, idleTimeoutMs, signal } = options;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { method, headers, agent, signal });
    let response: IncomingMessage | undefined;
    request.on('error', reject);
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => request.destroy(timeoutError('UND_ERR_CONNECT_TIMEOUT', 'connect timed out')),
        connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    // Socket inactivity: while waiting for the headers, then between body chunks.
    request.setTimeout(idleTimeoutMs, () => {
      const error =
        response === undefined
          ? timeoutError('UND_ERR_HEADERS_TIMEOUT', 'no response in time')
          : timeoutError('UND_ERR_BODY_TIMEOUT', 'response body stalled');
      response?.destroy(error);
      request.destroy(error);
    });
    request.on('response', (message) => {
      response = message;
      resolve({ statusCode: message.statusCode ?? 0, headers: message.headers, body: message });
    });
    if (body === undefined) request.end();
    // A failing body fails the request (and is destroyed when the request fails).
    else pipeline(body, request).catch((error: unknown) => request.destroy(error as Error));
  });
}
