import type { Socket } from 'node:net';
import { httpErrorBody } from '@agent-workspace/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers a request Node could not parse (garbage, a bad `Content-Length`, headers over 16 KiB,
 * a timeout) in the OpenHands error envelope, `{"detail": ...}`, and closes the connection:
 * 408 for a timeout, 431 for oversized headers, 400 otherwise.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'Request timed out']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Request headers are larger than 16 KiB']
        : [400, 'Bad Request', `Malformed HTTP request (${error.code ?? 'parse error'})`];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Answers Fastify's own routing failures in the error envelope: a URL that is not valid
 * percent-encoding (400) and a path parameter over the length limit (414).
 */
export function frameworkErrors(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send(httpErrorBody('A path segment is too long'));
  } else {
    void reply.code(400).send(httpErrorBody(`Malformed URL: ${error.message}`));
  }
}

const WEBSOCKET_KEY = /^[A-Za-z0-9+/]{22}==$/;

/**
 * `onRequest` check of websocket routes: a request that is no websocket upgrade, or whose
 * handshake headers are invalid, gets 400 `{"detail": ...}` instead of the websocket library's
 * plain-text or empty answers.
 */
export async function requireWebsocketHandshake(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { headers } = request;
  if (headers.upgrade?.toLowerCase() !== 'websocket') {
    await reply.code(400).send(httpErrorBody('This route takes websocket connections only'));
  } else if (!WEBSOCKET_KEY.test(headers['sec-websocket-key'] ?? '')) {
    await reply.code(400).send(httpErrorBody('Missing or invalid Sec-WebSocket-Key header'));
  } else if (!['8', '13'].includes(headers['sec-websocket-version'] ?? '')) {
    await reply.code(400).send(httpErrorBody('Sec-WebSocket-Version must be 13'));
  }
}
