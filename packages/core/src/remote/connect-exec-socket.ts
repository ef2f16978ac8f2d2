import type { RawData, WebSocket } from 'ws';
import type { WorkspaceError } from '../errors/workspace-error.js';
import type { ExecConnectionOptions } from './exec-connection-types.js';
import { httpStatusError } from './http-status-error.js';
import { transportError } from './transport-error.js';

/** `readyState` of an open websocket (the WHATWG number `ws` uses). */
export const OPEN = 1;
/** `readyState` of a closed websocket (the WHATWG number `ws` uses). */
export const CLOSED = 3;

/** Interval of websocket pings; a ping unanswered by the next one drops the connection. */
const HEARTBEAT_MS = 15_000;

let webSocketClass: Promise<typeof WebSocket> | undefined;

/** Loads `ws` on the first connect, so a client that never streams a command never pays for it. */
function loadWebSocket(): Promise<typeof WebSocket> {
  webSocketClass ??= import('ws').then((module) => module.WebSocket);
  return webSocketClass;
}

/** Callbacks of a socket opened by {@link connectExecSocket}. */
export interface ExecSocketHandlers {
  /** Called once authenticated and wired up; an error returned refuses (terminates) the socket. */
  open(socket: WebSocket): WorkspaceError | undefined;
  message(socket: WebSocket, data: RawData, isBinary: boolean): void;
  close(socket: WebSocket, code: number, reason: string): void;
}

/**
 * Opens a socket to the exec channel, authenticates it with a first frame, keeps it alive with
 * pings and routes its events to `handlers`.
 */
export async function connectExecSocket(
  options: Pick<ExecConnectionOptions, 'url' | 'host' | 'apiKey' | 'connectTimeoutMs'>,
  handlers: ExecSocketHandlers,
): Promise<WebSocket> {
  const { url, host, apiKey, connectTimeoutMs } = options;
  const operation = `websocket ${new URL(url).pathname}`;
  const WebSocketClass = await loadWebSocket();
  return new Promise((resolve, reject) => {
    const socket = new WebSocketClass(url, {
      handshakeTimeout: connectTimeoutMs,
      perMessageDeflate: false,
    });
    let status: number | undefined;
    let detail = '';
    socket.once('unexpected-response', (_request, response) => {
      status = response.statusCode;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        detail += chunk;
      });
      response.once('end', () => socket.terminate());
      response.once('error', () => socket.terminate());
    });
    const onError = (error: Error) => {
      reject(
        status === undefined
          ? transportError({ host, operation, cause: error })
          : httpStatusError({
              host,
              operation,
              status,
              detail: detail || `HTTP ${status}`,
              hasApiKey: apiKey !== undefined,
            }),
      );
    };
    socket.once('error', onError);
    socket.once('open', () => {
      socket.off('error', onError);
      // Errors after open surface as `close`.
      socket.on('error', () => {});
      if (apiKey !== undefined) {
        socket.send(JSON.stringify({ type: 'auth', session_api_key: apiKey }));
      }
      wire(socket, handlers);
      const refusal = handlers.open(socket);
      if (refusal) {
        socket.terminate();
        reject(refusal);
        return;
      }
      resolve(socket);
    });
  });
}

/** Starts the heartbeat and routes messages and the close to `handlers`. */
function wire(socket: WebSocket, handlers: ExecSocketHandlers): void {
  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const heartbeat = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, HEARTBEAT_MS);
  heartbeat.unref();
  socket.on('message', (data, isBinary) => handlers.message(socket, data, isBinary));
  socket.once('close', (code, reason) => {
    clearInterval(heartbeat);
    handlers.close(socket, code, reason.toString());
  });
}
