import {
  AGENT_SERVER_ROUTES,
  type ConversationEventWire,
  formatWireTimestamp,
  normalizeWireTimestamp,
  SOCKET_CLOSE_CODES,
  sendMessageRequestWireSchema,
  wireTimestampSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWebsocketHandshake } from '../app/protocol-errors.js';
import type { ServerContext } from '../app/server-context.js';
import { fullState } from '../conversations/conversation-info.js';
import { authenticateSocket, rejectInvalidDeprecatedKey } from './authenticate-socket.js';
import { describeFrameError } from './describe-frame-error.js';

/** Most simultaneous events-socket subscribers of one conversation (as OpenHands). */
export const MAX_CONVERSATION_SUBSCRIBERS = 50;

/**
 * Most bytes queued for a subscriber (unsent, or new events waiting for the history to be sent)
 * before it is closed with 1013 as too slow.
 */
export const MAX_EVENTS_SOCKET_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Unsent bytes past which the history waits for the client to read. */
const REPLAY_BUFFERED_BYTES = 1024 * 1024;

/** The form the server writes: UTC, six fraction digits, `Z`. */
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** An event's timestamp in the canonical UTC form, or as is when it is not one we can read. */
function comparableTimestamp(timestamp: unknown): string {
  const text = String(timestamp);
  if (CANONICAL_TIMESTAMP.test(text)) return text;
  return wireTimestampSchema.safeParse(text).success ? normalizeWireTimestamp(text) : text;
}

const paramsSchema = z.object({ conversation_id: z.string().min(1).max(200) });

const querySchema = z.object({
  /** `all` replays history; `since` replays events at or after `after_timestamp`. */
  resend_mode: z.enum(['all', 'since']).optional(),
  /**
   * ISO-8601; an offset is converted to UTC, none is taken as UTC (the server's time zone). With
   * `resend_mode=since` and no `after_timestamp` nothing is replayed, as in OpenHands.
   */
  after_timestamp: wireTimestampSchema.optional(),
  /** Deprecated spelling of `resend_mode=all`. */
  resend_all: z.stringbool().optional(),
  /** Deprecated: authenticate with a query parameter. */
  session_api_key: z.string().optional(),
});

/**
 * The events socket of a conversation, `AGENT_SERVER_ROUTES.conversationEventsSocket`
 * (OpenHands-compatible): after the auth handshake, an unknown conversation is closed with 4004
 * "Conversation not found"; otherwise the client gets a `ConversationStateUpdateEvent` with
 * `key: "full_state"`, then the history (`resend_mode=all`, or `since` with `after_timestamp`:
 * the events at or after it, compared in UTC; an unknown mode or a malformed timestamp is 422 at
 * the handshake),
 * streamed from disk at the client's pace, then every new event and a new `full_state` after
 * each run. A client frame that is a `Message` (`{"role":"user","content":[…]}`) is sent with
 * `run: true`; a bad one is answered with a `ServerErrorEvent`.
 */
export function registerEventsSocket(app: FastifyInstance, context: ServerContext): void {
  const service = context.conversations;
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
      const sendText = (text: string): void => {
        if (socket.readyState !== socket.OPEN) return;
        if (socket.bufferedAmount > MAX_EVENTS_SOCKET_BUFFERED_BYTES) {
          socket.close(SOCKET_CLOSE_CODES.tryAgainLater, 'Too slow: events were not read');
          return;
        }
        socket.send(text);
      };
      const send = (event: unknown): void => sendText(JSON.stringify(event));
      // History goes out at the pace the client reads it.
      const sendPaced = (event: unknown): Promise<void> =>
        new Promise((resolve) => {
          if (socket.readyState !== socket.OPEN) return resolve();
          const text = JSON.stringify(event);
          if (socket.bufferedAmount < REPLAY_BUFFERED_BYTES) {
            socket.send(text);
            resolve();
          } else socket.send(text, () => resolve());
        });
      const sendError = (code: string, detail: string): void =>
        send({
          kind: 'ServerErrorEvent',
          id: crypto.randomUUID(),
          timestamp: formatWireTimestamp(new Date()),
          source: 'environment',
          code,
          detail,
        });
      const since =
        mode === 'since' && after !== undefined ? normalizeWireTimestamp(after) : undefined;
      const start = async (): Promise<boolean> => {
        const held = await service.acquire(id);
        if (socket.readyState !== socket.OPEN) {
          if (held) service.release(held);
          return false;
        }
        if (!held) {
          socket.close(SOCKET_CLOSE_CODES.conversationNotFound, 'Conversation not found');
          return false;
        }
        let replay: AsyncIterable<{ event: ConversationEventWire }> | undefined;
        let waiting: string[] | undefined;
        try {
          if (service.watcherCount(id) >= MAX_CONVERSATION_SUBSCRIBERS) {
            socket.close(
              SOCKET_CLOSE_CODES.tryAgainLater,
              'Too many connections for this conversation',
            );
            return false;
          }
          // Snapshot, history as of now and subscription in one turn: no event is missed or
          // sent twice. New events wait (bounded) while the history is streamed; the watch, not
          // the slow stream, keeps the conversation loaded.
          send(fullState(held));
          // A deprecated `resend_all=true` counts only without `resend_mode`, as in OpenHands.
          if (mode === 'all' || (mode === undefined && resendAll === true) || since !== undefined) {
            replay = held.conversation.history.read();
            waiting = [];
          }
          let waitingBytes = 0;
          const unwatch = service.watch(held, (event) => {
            if (waiting === undefined) return send(event);
            const text = JSON.stringify(event);
            waiting.push(text);
            waitingBytes += text.length;
            if (waitingBytes > MAX_EVENTS_SOCKET_BUFFERED_BYTES) {
              socket.close(SOCKET_CLOSE_CODES.tryAgainLater, 'Too slow: events were not read');
            }
          });
          socket.once('close', unwatch);
        } finally {
          service.release(held);
        }
        if (replay !== undefined) {
          for await (const { event } of replay) {
            if (socket.readyState !== socket.OPEN) break;
            if (since === undefined || comparableTimestamp(event.timestamp) >= since) {
              await sendPaced(event);
            }
          }
          for (const text of waiting ?? []) sendText(text);
          waiting = undefined;
        }
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
            if (!service.get(id)) return sendError('NotFound', 'Conversation not found');
            context.touch();
            try {
              await service.use(id, (held) =>
                service.sendMessage(held, { ...parsed.data, run: true }),
              );
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
