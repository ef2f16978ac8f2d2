import { httpErrorBody } from '@agent-workspace/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Limits of {@link watchRequestBody}. */
export interface RequestBodyLimits {
  /** Longest a body may go without a byte, in milliseconds. */
  idleMs: number;
  /** Slowest average rate a body may arrive at once `idleMs` have passed, in bytes per second. */
  minBytesPerSecond: number;
}

/**
 * Route config of a route that hands its requests on to another app which watches their bodies
 * itself (a lazy route group's catch-alls): {@link watchRequestBody} then leaves the 408 of a
 * handed-on request to that app, and still lingers after an answer of its own (401, 503).
 */
export interface BodyWatchedElsewhere {
  bodyWatchedElsewhere?: true;
}

/** How long the rest of a body is read and discarded after an early answer (401, 413, ...). */
export const LINGER_MS = 5000;

/**
 * Watches the body of a request that has one: when no byte came for `idleMs`, or the body
 * trickles in slower than `minBytesPerSecond` on average (judged once `idleMs` have passed), it
 * answers 408 `Request body timed out: ...` with `Connection: close` if nothing was answered yet,
 * then closes the connection, which also ends the handler's reading of the body. Time during
 * which the server itself is not reading (backpressure from a slow disk) does not count.
 *
 * When the answer goes out before the body was read (401, 413, a refused destination), the rest
 * is read and discarded for at most {@link LINGER_MS}, so the client, still sending, gets to read
 * the answer (closing at once would reset the connection under it), and then the connection is
 * closed. Without all this a stalled or trickled body would hold its connection, descriptor and
 * any temporary file for as long as the client likes.
 */
export function watchRequestBody(
  request: FastifyRequest,
  reply: FastifyReply,
  limits: RequestBodyLimits,
): void {
  const raw = request.raw;
  const socket = raw.socket;
  if (raw.complete || !socket || !hasBody(request)) return;
  const { bodyWatchedElsewhere } = request.routeOptions.config as BodyWatchedElsewhere;
  const tickMs = Math.max(10, Math.min(1000, limits.idleMs / 4));
  let lastRead = socket.bytesRead;
  let received = 0;
  let idleMs = 0;
  let activeMs = 0;
  const expire = (reason: string): void => {
    clearInterval(timer);
    // Handed on and not answered yet: the app it went to watches the body and answers.
    if (bodyWatchedElsewhere && reply.sent && !reply.raw.headersSent) return;
    if (reply.sent) {
      socket.destroy();
      return;
    }
    reply.raw.once('finish', () => socket.destroy());
    void reply
      .code(408)
      .header('connection', 'close')
      .send(httpErrorBody(`Request body timed out: ${reason}`));
  };
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    const read = socket.bytesRead;
    // Data waiting for the handler means the server, not the client, is behind.
    const serverBehind = raw.readableLength > 0 || raw.isPaused();
    if (read > lastRead || serverBehind) idleMs = 0;
    else idleMs += tickMs;
    if (!serverBehind) activeMs += tickMs;
    received += read - lastRead;
    lastRead = read;
    if (idleMs >= limits.idleMs) {
      expire(`no byte received for ${limits.idleMs / 1000} s`);
    } else if (
      activeMs > limits.idleMs &&
      received / (activeMs / 1000) < limits.minBytesPerSecond
    ) {
      const rate = Math.round(received / (activeMs / 1000));
      expire(`arriving at ${rate} bytes/s, below ${limits.minBytesPerSecond}`);
    }
  }, tickMs);
  timer.unref();
  reply.raw.once('finish', () => {
    if (raw.complete) return;
    raw.resume();
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    raw.once('end', () => clearTimeout(linger));
  });
}

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
