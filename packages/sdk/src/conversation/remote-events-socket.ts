import { WorkspaceError } from '@agent-workspace/core';
import { Backoff, transportError } from '@agent-workspace/core/internal';
import { SOCKET_CLOSE_CODES } from '@agent-workspace/protocol';
import { type RawData, WebSocket } from 'ws';

/** First delay before reconnecting a dropped events socket. */
export const EVENTS_SOCKET_RECONNECT_INITIAL_MS = 100;
/** Largest delay between reconnect attempts of an events socket. */
export const EVENTS_SOCKET_RECONNECT_MAX_MS = 5_000;
/** Longest wait for the socket to open and send its first frame (the state snapshot). */
export const EVENTS_SOCKET_READY_TIMEOUT_MS = 30_000;

/** Options of {@link RemoteEventsSocket}. */
export interface RemoteEventsSocketOptions {
  /** The websocket URL of the conversation's events socket (`ws:` or `wss:`). */
  url: string;
  /** The agent-server's base URL, named in errors. */
  host: string;
  apiKey?: string | undefined;
  /** Each frame, parsed as JSON (not yet validated). */
  onFrame(frame: unknown): void;
  /** After each reconnect (not the first connect), once the socket is ready. */
  onReconnected(): void;
  /** The socket is gone for good: the key was refused (4001) or the conversation is gone (4004). */
  onFatal(error: WorkspaceError): void;
  readyTimeoutMs?: number | undefined;
}

/**
 * The events socket of one remote conversation: authenticates with a first
 * `{"type":"auth"}` frame, and after a dropped connection reconnects with a capped exponential
 * backoff (100 ms doubling to 5 s) until closed. Close codes 4001 and 4004 are fatal.
 */
export class RemoteEventsSocket {
  readonly #options: RemoteEventsSocketOptions;
  readonly #backoff = new Backoff({
    initialMs: EVENTS_SOCKET_RECONNECT_INITIAL_MS,
    maxMs: EVENTS_SOCKET_RECONNECT_MAX_MS,
  });
  #socket: WebSocket | undefined;
  #closed = false;
  /** The current connection has sent its first frame and not closed since. */
  #connected = false;
  /** Reconnecting starts only after a first successful connect. */
  #everReady = false;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(options: RemoteEventsSocketOptions) {
    this.#options = options;
  }

  /** Connects for the first time; rejects with a `WorkspaceError` when that fails. */
  async start(): Promise<void> {
    await this.#connect(false);
  }

  /** Whether a connection is up (ready, and not closed since): it brings every new event. */
  get connected(): boolean {
    return this.#connected;
  }

  /** For tests and diagnostics: drops the current connection as a network failure would. */
  dropConnection(): void {
    this.#socket?.terminate();
  }

  /** Closes the socket and stops reconnecting. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#connected = false;
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket && socket.readyState !== WebSocket.CLOSED) socket.close(1000);
  }

  #connect(reconnect: boolean): Promise<void> {
    const { url, host, apiKey, readyTimeoutMs = EVENTS_SOCKET_READY_TIMEOUT_MS } = this.#options;
    const operation = `websocket ${new URL(url).pathname}`;
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(url, {
        handshakeTimeout: readyTimeoutMs,
        perMessageDeflate: false,
      });
      this.#socket = socket;
      let ready = false;
      const timer = setTimeout(() => {
        fail(
          new WorkspaceError({
            code: 'CONNECTION_ERROR',
            message: `the events socket at ${host} sent nothing within ${readyTimeoutMs} ms`,
            details: { host, operation },
          }),
        );
        socket.terminate();
      }, readyTimeoutMs);
      const fail = (error: WorkspaceError) => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        reject(error);
      };
      socket.on('error', (error) => fail(transportError({ host, operation, cause: error })));
      socket.once('unexpected-response', (_request, response) => {
        fail(
          new WorkspaceError({
            code: response.statusCode === 403 ? 'AUTHENTICATION_ERROR' : 'CONNECTION_ERROR',
            message: `the agent-server at ${host} refused ${operation} (HTTP ${response.statusCode})`,
            details: { host, operation, status: response.statusCode },
          }),
        );
        socket.terminate();
      });
      socket.once('open', () => {
        if (apiKey !== undefined) {
          socket.send(JSON.stringify({ type: 'auth', session_api_key: apiKey }));
        }
      });
      socket.on('message', (data: RawData, isBinary: boolean) => {
        if (isBinary) return;
        let frame: unknown;
        try {
          frame = JSON.parse(data.toString()) as unknown;
        } catch {
          return;
        }
        if (!ready) {
          ready = true;
          clearTimeout(timer);
          this.#backoff.reset();
          this.#everReady = true;
          if (this.#socket === socket) this.#connected = true;
          resolve();
          if (reconnect) this.#options.onReconnected();
        }
        this.#options.onFrame(frame);
      });
      socket.once('close', (code: number, reasonBuffer: Buffer) => {
        if (this.#socket === socket) this.#connected = false;
        const reason = reasonBuffer.toString();
        const fatal = fatalClose(code, reason, host, operation);
        fail(
          fatal ??
            new WorkspaceError({
              code: 'CONNECTION_ERROR',
              message: `the events socket at ${host} closed before it was ready (code ${code}${reason ? `: ${reason}` : ''})`,
              details: { host, operation, closeCode: code },
            }),
        );
        if (this.#socket !== socket || this.#closed || !this.#everReady) return;
        if (fatal) {
          this.#closed = true;
          this.#options.onFatal(fatal);
          return;
        }
        this.#scheduleReconnect();
      });
    });
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    this.#retryTimer = setTimeout(() => {
      if (this.#closed) return;
      this.#connect(true).catch(() => {
        // The close handler of the failed attempt schedules the next one (or reports it fatal).
      });
    }, this.#backoff.next());
  }
}

function fatalClose(
  code: number,
  reason: string,
  host: string,
  operation: string,
): WorkspaceError | undefined {
  if (code === SOCKET_CLOSE_CODES.authenticationFailed) {
    return new WorkspaceError({
      code: 'AUTHENTICATION_ERROR',
      message: `the agent-server at ${host} rejected the session API key on ${operation}: check apiKey`,
      details: { host, operation, closeCode: code, reason },
    });
  }
  if (code === SOCKET_CLOSE_CODES.conversationNotFound) {
    return new WorkspaceError({
      code: 'NOT_FOUND',
      message: `the agent-server at ${host} has no such conversation (${operation})`,
      details: { host, operation, closeCode: code, reason },
    });
  }
  return undefined;
}
