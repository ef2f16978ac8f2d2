import {
  httpErrorBody,
  SOCKET_CLOSE_CODES,
  websocketAuthFrameWireSchema,
} from '@agent-workspace/protocol';
import type { WebSocket } from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonErrorReason } from '../app/parse-json-body.js';
import type { ServerContext } from '../app/server-context.js';
import { SESSION_KEY_HEADER_NAME } from '../app/session-auth.js';

/** How long a socket may take to send its `{"type":"auth"}` frame. */
export const AUTH_TIMEOUT_MS = 10_000;

/** A client frame: parsed JSON, or why it is not JSON. */
export type ClientFrame = { ok: true; value: unknown } | { ok: false; error: string };

/** What {@link authenticateSocket} calls once the socket may be used. */
export interface AuthenticatedSocketHandlers {
  /** Called once, synchronously, as soon as the client is authenticated. */
  onAuthenticated(): void;
  /** Every later frame, except extra `{"type":"auth"}` frames, which are ignored. */
  onFrame(frame: ClientFrame): void;
}

/** The deprecated key of a websocket upgrade: `?session_api_key=` or the session key header. */
function deprecatedSessionKey(request: FastifyRequest): unknown {
  const query = request.query as { session_api_key?: unknown } | undefined;
  return query?.session_api_key ?? request.headers[SESSION_KEY_HEADER_NAME];
}

/**
 * `preValidation` hook of websocket routes: a deprecated key (query or header) that is wrong
 * rejects the handshake with 403 `{"detail":"Authentication failed"}`, as OpenHands closes with
 * 4001 before accepting.
 */
export function rejectInvalidDeprecatedKey(context: ServerContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!context.auth.required) return;
    const key = deprecatedSessionKey(request);
    if (key !== undefined && !context.auth.check(key)) {
      await reply.status(403).send(httpErrorBody('Authentication failed'));
    }
  };
}

/**
 * Runs the OpenHands websocket auth handshake on an accepted socket: with no keys configured, or
 * a (valid, see {@link rejectInvalidDeprecatedKey}) deprecated key, the socket is ready at once;
 * otherwise its first frame must be `{"type":"auth","session_api_key":…}` with a valid key,
 * within {@link AUTH_TIMEOUT_MS}, or it is closed with 4001 "Authentication failed".
 * Keys are checked in constant time.
 */
export function authenticateSocket(
  socket: WebSocket,
  request: FastifyRequest,
  context: ServerContext,
  handlers: AuthenticatedSocketHandlers,
): void {
  let authenticated = !context.auth.required || deprecatedSessionKey(request) !== undefined;
  let failed = false;
  const fail = (): void => {
    failed = true;
    socket.close(SOCKET_CLOSE_CODES.authenticationFailed, 'Authentication failed');
  };
  const timer = authenticated ? undefined : setTimeout(fail, AUTH_TIMEOUT_MS);
  socket.once('close', () => clearTimeout(timer));
  socket.on('message', (data) => {
    if (failed) return;
    const frame = parseFrame(data);
    const auth = frame.ok ? websocketAuthFrameWireSchema.safeParse(frame.value) : undefined;
    if (!authenticated) {
      clearTimeout(timer);
      if (!auth?.success || !context.auth.check(auth.data.session_api_key)) {
        fail();
        return;
      }
      authenticated = true;
      handlers.onAuthenticated();
    } else if (!isAuthFrame(frame)) {
      handlers.onFrame(frame);
    }
  });
  if (authenticated) handlers.onAuthenticated();
}

function isAuthFrame(frame: ClientFrame): boolean {
  return (
    frame.ok &&
    typeof frame.value === 'object' &&
    frame.value !== null &&
    (frame.value as { type?: unknown }).type === 'auth'
  );
}

function parseFrame(data: Buffer | ArrayBuffer | Buffer[]): ClientFrame {
  const buffer = Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(data);
  try {
    return { ok: true, value: JSON.parse(buffer.toString('utf8')) };
  } catch (error) {
    return {
      ok: false,
      error: `frame is not valid JSON: ${jsonErrorReason((error as Error).message)}`,
    };
  }
}
