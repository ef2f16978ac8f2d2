import {
  AGENT_SERVER_ROUTES,
  type BashErrorCode,
  type BashErrorWire,
  executeBashRequestWireSchema,
  formatWireTimestamp,
  newHexId,
  SOCKET_CLOSE_CODES,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWebsocketHandshake } from '../app/protocol-errors.js';
import type { ServerContext } from '../app/server-context.js';
import { describeStartError } from '../bash/describe-start-error.js';
import {
  authenticateSocket,
  type ClientFrame,
  rejectInvalidDeprecatedKey,
} from './authenticate-socket.js';
import { describeFrameError } from './describe-frame-error.js';
import { SocketSender } from './socket-sender.js';

/** Most simultaneous bash-events socket subscribers (as OpenHands). */
export const MAX_BASH_EVENT_SUBSCRIBERS = 50;

/** Events read from the store per pull. */
const BATCH = 256;

const querySchema = z.object({
  /** `all` replays history before live events. */
  resend_mode: z.string().optional(),
  /** Deprecated spelling of `resend_mode=all`. */
  resend_all: z.stringbool().optional(),
  /** Deprecated: authenticate with a query parameter. */
  session_api_key: z.string().optional(),
});

/**
 * The bash-events socket, `AGENT_SERVER_ROUTES.bashEventsSocket` (OpenHands-compatible): after the auth handshake, pushes every new
 * `BashCommand`/`BashOutput` (nulls included), optionally after replaying history
 * (`resend_mode=all` or deprecated `resend_all=true`). A client frame that is an
 * `ExecuteBashRequest` starts a command; a bad frame gets a `BashError` frame and the socket
 * stays open. At most {@link MAX_BASH_EVENT_SUBSCRIBERS} subscribers (more are closed with 1013);
 * one so slow that unsent events were evicted is closed with 1013 too.
 */
export function registerBashEventsSocket(app: FastifyInstance, context: ServerContext): void {
  let subscribers = 0;
  app.withTypeProvider<ZodTypeProvider>().get(
    AGENT_SERVER_ROUTES.bashEventsSocket,
    {
      websocket: true,
      onRequest: requireWebsocketHandshake,
      schema: { querystring: querySchema },
      preValidation: rejectInvalidDeprecatedKey(context),
    },
    (socket, request) => {
      const { bash } = context;
      const replay = request.query.resend_mode === 'all' || request.query.resend_all === true;
      let subscribed = false;
      let cursor = 0;
      let lossBaseline = 0;
      const sender = new SocketSender(socket, () => pump());
      const pump = (): void => {
        if (bash.evictedThrough > Math.max(cursor, lossBaseline)) {
          // Checked even while blocked, so a stalled client is dropped as soon as it lost events.
          if (socket.readyState === socket.OPEN) {
            socket.close(
              SOCKET_CLOSE_CODES.tryAgainLater,
              'Too slow: events were dropped before sending',
            );
          }
          return;
        }
        while (!sender.blocked) {
          const batch = bash.eventsAfter(cursor, BATCH);
          if (batch.length === 0) return;
          for (const stored of batch) {
            cursor = stored.seq;
            if (!sender.send(JSON.stringify(stored.event))) return;
          }
        }
      };
      const sendError = (code: BashErrorCode, detail: string): void => {
        const error: BashErrorWire = {
          kind: 'BashError',
          id: newHexId(),
          timestamp: formatWireTimestamp(new Date()),
          code,
          detail,
        };
        sender.send(JSON.stringify(error));
      };
      const startFromFrame = async (frame: ClientFrame): Promise<void> => {
        if (!frame.ok) return sendError('JSONDecodeError', frame.error);
        const parsed = executeBashRequestWireSchema.safeParse(frame.value);
        if (!parsed.success) {
          return sendError('ValidationError', describeFrameError(parsed.error, frame.value));
        }
        context.touch();
        const { command, cwd, timeout } = parsed.data;
        try {
          await bash.startCommand({
            command,
            timeoutSeconds: timeout,
            cwd: cwd ?? undefined,
            detached: true,
          });
        } catch (error) {
          const failure = describeStartError(error);
          if (!failure) request.log.error({ err: error }, 'bash-events socket: start failed');
          sendError(
            failure ? failure.bashErrorCode : 'Exception',
            failure?.detail ?? String(error),
          );
        }
      };
      authenticateSocket(socket, request, context, {
        onAuthenticated: () => {
          if (subscribers >= MAX_BASH_EVENT_SUBSCRIBERS) {
            socket.close(SOCKET_CLOSE_CODES.tryAgainLater, 'Too many connections');
            return;
          }
          subscribers++;
          subscribed = true;
          cursor = replay ? 0 : bash.lastSeq;
          lossBaseline = bash.evictedThrough;
          const unsubscribe = bash.subscribe(pump);
          socket.once('close', () => {
            subscribers--;
            unsubscribe();
          });
          pump();
        },
        onFrame: (frame) => {
          if (subscribed) void startFromFrame(frame);
        },
      });
    },
  );
}
