import { type FileWatcher, WorkspaceError } from '@agent-workspace/core';
import { openDirectory, watchDirectoryTree } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  DEFAULT_MAX_FILE_EVENTS_PER_SECOND,
  DEFAULT_MAX_QUEUED_FILE_EVENTS,
  type FileWatchServerFrameWire,
  fileWatchQueryWireSchema,
  MAX_FILE_WATCH_SOCKETS,
  SOCKET_CLOSE_CODES,
} from '@agent-workspace/protocol';
import type { WebSocket } from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireWebsocketHandshake } from '../app/protocol-errors.js';
import type { ServerContext } from '../app/server-context.js';
import { authenticateSocket, rejectInvalidDeprecatedKey } from './authenticate-socket.js';
import { SocketSender } from './socket-sender.js';

/** Close code after the last frame of a watch (its `error` frame, or none when it ended). */
const NORMAL_CLOSURE = 1000;

/**
 * Our file-watch socket, `AGENT_SERVER_ROUTES.fileWatchSocket` (`FILE_WATCH_CAPABILITY`): after
 * the auth handshake, watches the directory `?path=` (opened through the server's path walker,
 * so confined like the file routes; `recursive=true` for every directory below, links never
 * followed) and sends `ready`, then one frame per change, at most `max_events_per_second` (a
 * burst of as many, then paced). At most `max_queued_events` changes wait for a slow client or
 * the pace (then one `overflow`), the socket's send buffer is bounded, and at most
 * `MAX_FILE_WATCH_SOCKETS` sockets watch at once (more are closed with 1013). A path that cannot
 * be watched gets one `error` frame (`NOT_FOUND`, `FORBIDDEN`, `INVALID_ARGUMENT` naming
 * `path`) and the socket closes; the watch stops when the client goes. Client frames after the
 * auth frame are ignored.
 */
export function registerFileWatchSocket(app: FastifyInstance, context: ServerContext): void {
  let watching = 0;
  app.withTypeProvider<ZodTypeProvider>().get(
    AGENT_SERVER_ROUTES.fileWatchSocket,
    {
      websocket: true,
      onRequest: requireWebsocketHandshake,
      schema: { querystring: fileWatchQueryWireSchema },
      preValidation: rejectInvalidDeprecatedKey(context),
    },
    (socket, request) => {
      const query = request.query;
      let watcher: FileWatcher | undefined;
      let counted = false;
      let gone = false;
      socket.once('close', () => {
        gone = true;
        if (counted) watching--;
        void watcher?.close();
      });
      const run = async (): Promise<void> => {
        const sender = new WatchFrameSender(socket);
        try {
          const root = openDirectory(context.paths, query.path, 'path');
          watcher = await watchDirectoryTree({
            root,
            recursive: query.recursive ?? false,
            maxQueuedEvents: query.max_queued_events ?? DEFAULT_MAX_QUEUED_FILE_EVENTS,
            maxEventsPerSecond: query.max_events_per_second ?? DEFAULT_MAX_FILE_EVENTS_PER_SECOND,
            signal: undefined,
          });
          if (gone) return void (await watcher.close());
          await sender.send({ type: 'ready' });
          for await (const event of watcher) {
            await sender.send(
              event.isDirectory === undefined
                ? { type: event.type, path: event.path }
                : { type: event.type, path: event.path, is_directory: event.isDirectory },
            );
          }
        } catch (error) {
          if (!WorkspaceError.isInstance(error)) {
            request.log.error({ err: error }, 'file-watch socket: watching failed');
          }
          await sender.send(errorFrame(error));
        }
        if (socket.readyState === socket.OPEN) socket.close(NORMAL_CLOSURE);
      };
      authenticateSocket(socket, request, context, {
        onAuthenticated: () => {
          if (watching >= MAX_FILE_WATCH_SOCKETS) {
            socket.close(SOCKET_CLOSE_CODES.tryAgainLater, 'Too many connections');
            return;
          }
          watching++;
          counted = true;
          void run();
        },
        onFrame: () => {},
      });
    },
  );
}

/** Sends frames, waiting while the socket's send buffer is full (the watcher's queue fills). */
class WatchFrameSender {
  readonly #socket: WebSocket;
  readonly #sender: SocketSender;
  #writable: (() => void) | undefined;

  constructor(socket: WebSocket) {
    this.#socket = socket;
    this.#sender = new SocketSender(socket, () => this.#writable?.());
    socket.once('close', () => this.#writable?.());
  }

  /** Resolves once `frame` may be followed by another (or the socket is gone). */
  async send(frame: FileWatchServerFrameWire): Promise<void> {
    if (this.#sender.send(JSON.stringify(frame))) return;
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    await new Promise<void>((resolve) => {
      this.#writable = resolve;
    });
  }
}

function errorFrame(error: unknown): FileWatchServerFrameWire {
  if (!WorkspaceError.isInstance(error)) {
    return { type: 'error', code: 'SERVER_ERROR', message: 'watching failed' };
  }
  const field = error.details.field;
  return typeof field === 'string'
    ? { type: 'error', code: error.code, message: error.message, field }
    : { type: 'error', code: error.code, message: error.message };
}
