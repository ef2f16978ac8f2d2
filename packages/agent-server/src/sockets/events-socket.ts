import {
  AGENT_SERVER_ROUTES,
  formatWireTimestamp,
  SOCKET_CLOSE_CODES,
  sendMessageRequestWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWebsocketHandshake } from '../app/protocol-errors.js';
import type { ServerContext } from '../app/server-context.js';
import { conversationServiceOf } from '../conversations/conversation-service-of.js';
import { authenticateSocket, rejectInvalidDeprecatedKey } from './authenticate-socket.js';
import { describeFrameError } from './describe-frame-error.js';

/** Most simultaneous events-socket subscribers of one conversation (as OpenHands). */
export const MAX_CONVERSATION_SUBSCRIBERS = 50;

/** Most bytes queued for a subscriber before it is closed with 1013 as too slow. */
export const MAX_EVENTS_SOCKET_BUFFERED_BYTES = 16 * 1024 * 1024;

const paramsSchema = z.object({ conversation_id: z.string().min(1).max(200) });

const querySchema = z.object({
  /** `all` replays history; `since` replays events at or after `after_timestamp`. */
  resend_mode: z.string().optional(),
  after_timestamp: z.string().max(64).optional(),
  /** Deprecated spelling of `resend_mode=all`. */
  resend_all: z.stringbool().optional(),
  /** Deprecated: authenticate with a query parameter. */
  session_api_key: z.string().optional(),
});

/**
 * The events socket of a conversation, `AGENT_SERVER_ROUTES.conversationEventsSocket`
 * (OpenHands-compatible): after the auth handshake, an unknown conversation is closed with 4004
 * "Conversation not found"; otherwise the client gets a `ConversationStateUpdateEvent` with
 * `key: "full_state"`, then the history (`resend_mode=all`, or `since` with `after_timestamp`),
 * then every new event and a new `full_state` after each run. A client frame that is a `Message`
 * (`{"role":"user","content":[…]}`) is sent with `run: true`; a bad one is answered with a
 * `ServerErrorEvent`.
 */
export function registerEventsSocket(app: FastifyInstance, context: ServerContext): void {
  const service = conversationServiceOf(context, app);
  app.withTypeProvider<ZodTypeProvider>().get(
    AGENT_SERVER_ROUTES.conversationEventsSocket,
    {
      websocket: true,
      onRequest: requireWebsocketHandshake,
      schema: { params: paramsSchema, querystring: querySchema },
      preValidation: rejectInvalidDeprecatedKey(context),
    },
    (socket, request) => {
      const { conversation_id: id } = request.params;
      const { resend_mode: mode, after_timestamp: after, resend_all: resendAll } = request.query;
      let ready: Promise<boolean> = Promise.resolve(false);
      const send = (event: unknown): void => {
        if (socket.readyState !== socket.OPEN) return;
        if (socket.bufferedAmount > MAX_EVENTS_SOCKET_BUFFERED_BYTES) {
          socket.close(SOCKET_CLOSE_CODES.tryAgainLater, 'Too slow: events were not read');
          return;
        }
        socket.send(JSON.stringify(event));
      };
      const sendError = (code: string, detail: string): void =>
        send({
          kind: 'ServerErrorEvent',
          id: crypto.randomUUID(),
          timestamp: formatWireTimestamp(new Date()),
          source: 'environment',
          code,
          detail,
        });
      const start = async (): Promise<boolean> => {
        await service.ready();
        const held = service.get(id);
        if (socket.readyState !== socket.OPEN) return false;
        if (!held) {
          socket.close(SOCKET_CLOSE_CODES.conversationNotFound, 'Conversation not found');
          return false;
        }
        if (service.watcherCount(id) >= MAX_CONVERSATION_SUBSCRIBERS) {
          socket.close(
            SOCKET_CLOSE_CODES.tryAgainLater,
            'Too many connections for this conversation',
          );
          return false;
        }
        // Snapshot, replay and subscription in one turn: no event is missed or sent twice.
        send(service.fullState(held));
        if (mode === 'all' || resendAll === true) {
          for (const event of held.conversation.events) send(event);
        } else if (mode === 'since' && after !== undefined) {
          for (const event of held.conversation.events) {
            if (String(event.timestamp) >= after) send(event);
          }
        }
        const unwatch = service.watch(held, send);
        socket.once('close', unwatch);
        return true;
      };
      authenticateSocket(socket, request, context, {
        onAuthenticated: () => {
          ready = start().catch((error: unknown) => {
            request.log.error({ err: error }, 'events socket: subscribe failed');
            socket.close(1011, 'Internal error');
            return false;
          });
        },
        onFrame: (frame) => {
          void ready.then(async (subscribed) => {
            if (!subscribed) return;
            if (!frame.ok) return sendError('JSONDecodeError', frame.error);
            const parsed = sendMessageRequestWireSchema.safeParse(frame.value);
            if (!parsed.success) {
              return sendError('ValidationError', describeFrameError(parsed.error, frame.value));
            }
            const held = service.get(id);
            if (!held) return sendError('NotFound', 'Conversation not found');
            context.touch();
            try {
              await service.sendMessage(held, { ...parsed.data, run: true });
            } catch (error) {
              sendError(
                error instanceof Error ? error.name : 'Exception',
                error instanceof Error ? error.message : String(error),
              );
            }
          });
        },
      });
    },
  );
}
