import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ExecClientFrameWire,
  type ExecServerFrameWire,
  type ExecSignal,
  execServerFrameWireSchema,
} from '@agent-workspace/protocol';
import type { RawData, WebSocket } from 'ws';
import { WorkspaceError } from '../errors/workspace-error.js';
import { Backoff } from './backoff.js';
import { httpStatusError } from './http-status-error.js';
import { transportError } from './transport-error.js';

/** `readyState` values of a websocket (the WHATWG numbers `ws` uses). */
const OPEN = 1;
const CLOSED = 3;

let webSocketClass: Promise<typeof WebSocket> | undefined;

/** Loads `ws` on the first connect, so a client that never streams a command never pays for it. */
function loadWebSocket(): Promise<typeof WebSocket> {
  webSocketClass ??= import('ws').then((module) => module.WebSocket);
  return webSocketClass;
}

/** Close code of a failed websocket authentication. */
const AUTH_FAILED_CLOSE_CODE = 4001;
/** Interval of websocket pings; a ping unanswered by the next one drops the connection. */
const HEARTBEAT_MS = 15_000;
/** How long `close()` waits for the closing handshake before dropping the socket. */
const CLOSE_GRACE_MS = 1_000;

/** Options of {@link ExecStream}. */
export interface ExecStreamOptions {
  /** `ws(s)://…/sockets/exec`, without credentials. */
  url: string;
  /** The agent-server's base URL, named in errors. */
  host: string;
  /** Sent in the first frame, never in the URL. */
  apiKey?: string | undefined;
  connectTimeoutMs: number;
  /** How long a dropped connection with commands running may take to come back. */
  reconnectTimeoutMs: number;
}

/** What {@link ExecStream.start} runs. */
export interface ExecStartSpec {
  command: string;
  /** Absolute working directory. */
  cwd: string;
  /** Server-side timeout in seconds (fractions allowed). */
  timeoutSeconds: number;
  env: Record<string, string>;
}

/** Receives the events of one command; exactly one of `exit` / `fail` is called, once. */
export interface ExecListener {
  output(stream: 'stdout' | 'stderr', data: string): void;
  exit(exit: { exitCode: number; timeoutOccurred: boolean; durationMs: number }): void;
  fail(error: WorkspaceError): void;
}

/** Control of a command started with {@link ExecStream.start}. */
export interface ExecHandle {
  /** Sends `signal` to the command's process group (after its start is confirmed if need be). */
  kill(signal: ExecSignal): void;
  /** Stops delivering events; a queued kill is still sent. */
  detach(): void;
  /** True while the connection is being re-established. */
  readonly reconnecting: boolean;
}

interface Entry {
  requestId: string;
  spec: ExecStartSpec;
  /** Undefined once detached. */
  listener: ExecListener | undefined;
  commandId?: string;
  /** Highest `order` delivered; resume point of `attach`. */
  lastOrder: number;
  /** The socket the `start` frame went out on. */
  socket?: WebSocket;
  /** Signal to send once the start is confirmed. */
  pendingSignal?: ExecSignal;
}

/**
 * The streaming-exec channel (`/sockets/exec`) of one agent-server: a single websocket, opened
 * lazily and shared by every command, authenticated with a first frame.
 *
 * When the connection drops while commands run, it reconnects with bounded backoff and sends
 * `attach {command_id, after_order}` for each, so output is neither lost nor repeated (frames
 * at or below the last delivered `order` are dropped). A command whose start was not yet
 * confirmed fails with `CONNECTION_ERROR` (it may or may not have run); if the server stays
 * away past `reconnectTimeoutMs`, every command fails with `CONNECTION_ERROR`.
 */
export class ExecStream {
  readonly #options: ExecStreamOptions;
  #socket: WebSocket | undefined;
  #connecting: Promise<WebSocket> | undefined;
  #reconnecting = false;
  #closed = false;
  /** By request id, until `started`. */
  readonly #starting = new Map<string, Entry>();
  /** By command id, until `exit`. */
  readonly #running = new Map<string, Entry>();
  /** Kills of detached commands waiting for the connection to come back. */
  readonly #queuedSignals: Array<{ commandId: string; signal: ExecSignal }> = [];
  /** Called by `close()`'s wait once no kill waits for a start confirmation. */
  #killsSent: (() => void) | undefined;

  constructor(options: ExecStreamOptions) {
    this.#options = options;
  }

  /** Starts a command; its events go to `listener`. */
  start(spec: ExecStartSpec, listener: ExecListener): ExecHandle {
    const entry: Entry = {
      requestId: randomBytes(8).toString('hex'),
      spec,
      listener,
      lastOrder: -1,
    };
    this.#starting.set(entry.requestId, entry);
    this.#open().then(
      (socket) => {
        // Detached before it went out: never start it.
        if (this.#starting.get(entry.requestId) !== entry || entry.listener === undefined) {
          this.#starting.delete(entry.requestId);
          return;
        }
        if (socket.readyState !== OPEN) {
          this.#starting.delete(entry.requestId);
          entry.listener?.fail(
            new WorkspaceError({
              code: 'CONNECTION_ERROR',
              message: `the connection to the agent-server at ${this.#options.host} closed before \`${spec.command}\` could start`,
              details: { host: this.#options.host },
            }),
          );
          return;
        }
        entry.socket = socket;
        this.#send(socket, {
          type: 'start',
          request_id: entry.requestId,
          command: spec.command,
          cwd: spec.cwd,
          timeout: spec.timeoutSeconds,
          env: spec.env,
        });
      },
      (error: WorkspaceError) => {
        if (this.#starting.get(entry.requestId) !== entry) return;
        this.#starting.delete(entry.requestId);
        entry.listener?.fail(error);
      },
    );
    const stream = this;
    return {
      kill: (signal) => {
        if (entry.commandId === undefined) entry.pendingSignal = signal;
        else this.#signal(entry.commandId, signal);
      },
      detach: () => {
        entry.listener = undefined;
        if (entry.commandId !== undefined) this.#running.delete(entry.commandId);
        else if (entry.pendingSignal === undefined || entry.socket === undefined) {
          this.#starting.delete(entry.requestId);
        }
      },
      get reconnecting() {
        return stream.#reconnecting;
      },
    };
  }

  /**
   * Fails every command with `WORKSPACE_CLOSED` and closes the socket, after waiting (briefly)
   * for the start confirmation of commands killed before it arrived. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const error = new WorkspaceError({
      code: 'WORKSPACE_CLOSED',
      message: 'the remote workspace was closed while the command ran',
    });
    this.#failAll(error, true);
    const socket = this.#socket;
    if (socket?.readyState === OPEN && this.#awaitingKill()) {
      await new Promise<void>((resolve) => {
        this.#killsSent = resolve;
        setTimeout(resolve, CLOSE_GRACE_MS).unref();
      });
    }
    this.#socket = undefined;
    if (!socket || socket.readyState === CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.close(1000);
    const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  /** The open socket, connecting once for all callers. */
  #open(): Promise<WebSocket> {
    if (this.#closed) {
      return Promise.reject(
        new WorkspaceError({ code: 'WORKSPACE_CLOSED', message: 'the remote workspace is closed' }),
      );
    }
    if (this.#socket?.readyState === OPEN) return Promise.resolve(this.#socket);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Opens, authenticates and wires up one socket. */
  async #connect(): Promise<WebSocket> {
    const { url, host, apiKey, connectTimeoutMs } = this.#options;
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
          this.#send(socket, { type: 'auth', session_api_key: apiKey });
        }
        for (const { commandId, signal } of this.#queuedSignals.splice(0)) {
          this.#send(socket, { type: 'signal', command_id: commandId, signal });
        }
        this.#wire(socket);
        if (this.#closed) {
          socket.terminate();
          reject(new WorkspaceError({ code: 'WORKSPACE_CLOSED', message: 'workspace closed' }));
          return;
        }
        this.#socket = socket;
        resolve(socket);
      });
    });
  }

  #wire(socket: WebSocket): void {
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
    socket.on('message', (data, isBinary) => this.#onMessage(socket, data, isBinary));
    socket.once('close', (code, reason) => {
      clearInterval(heartbeat);
      this.#onClose(socket, code, reason.toString());
    });
  }

  #onMessage(socket: WebSocket, data: RawData, isBinary: boolean): void {
    let frame: ExecServerFrameWire;
    try {
      if (isBinary) throw new Error('binary frame');
      frame = execServerFrameWireSchema.parse(JSON.parse(data.toString()));
    } catch (error) {
      this.#failAll(
        new WorkspaceError({
          code: 'PROTOCOL_ERROR',
          message: `the agent-server at ${this.#options.host} sent a malformed exec frame: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        }),
      );
      socket.terminate();
      return;
    }
    switch (frame.type) {
      case 'started': {
        const entry = this.#starting.get(frame.request_id ?? '');
        if (!entry) return;
        this.#starting.delete(entry.requestId);
        entry.commandId = frame.command_id;
        if (entry.pendingSignal) this.#signal(frame.command_id, entry.pendingSignal);
        if (entry.listener) this.#running.set(frame.command_id, entry);
        if (!this.#awaitingKill()) this.#killsSent?.();
        return;
      }
      case 'output': {
        const entry = this.#running.get(frame.command_id);
        if (!entry || frame.order <= entry.lastOrder) return;
        entry.lastOrder = frame.order;
        entry.listener?.output(frame.stream, frame.data);
        return;
      }
      case 'exit': {
        const entry = this.#running.get(frame.command_id);
        if (!entry) return;
        this.#running.delete(frame.command_id);
        entry.listener?.exit({
          exitCode: frame.exit_code,
          timeoutOccurred: frame.timeout_occurred,
          durationMs: frame.duration_ms,
        });
        return;
      }
      case 'error': {
        // Answers to a late kill of a command that already ended; its exit frame follows.
        if (frame.code === 'NOT_RUNNING' || frame.code === 'STDIN_CLOSED') return;
        const entry =
          (frame.request_id !== null ? this.#starting.get(frame.request_id) : undefined) ??
          (frame.command_id !== null ? this.#running.get(frame.command_id) : undefined);
        if (entry) {
          this.#starting.delete(entry.requestId);
          if (entry.commandId !== undefined) this.#running.delete(entry.commandId);
          entry.listener?.fail(this.#frameError(frame, entry));
        } else if (frame.request_id === null && frame.command_id === null) {
          this.#failAll(this.#frameError(frame, undefined));
        }
        // Otherwise it concerns a command no one waits for any more (e.g. a late kill).
        return;
      }
    }
  }

  #onClose(socket: WebSocket, code: number, reason: string): void {
    if (this.#socket === socket) this.#socket = undefined;
    if (this.#closed) return;
    const { host } = this.#options;
    if (code === AUTH_FAILED_CLOSE_CODE) {
      this.#failAll(
        httpStatusError({
          host,
          operation: `websocket ${new URL(this.#options.url).pathname}`,
          status: 401,
          detail: reason || 'Authentication failed',
          hasApiKey: this.#options.apiKey !== undefined,
        }),
      );
      return;
    }
    for (const entry of [...this.#starting.values()]) {
      if (entry.socket !== socket) continue;
      this.#starting.delete(entry.requestId);
      entry.listener?.fail(
        new WorkspaceError({
          code: 'CONNECTION_ERROR',
          message: `the connection to the agent-server at ${host} dropped before it confirmed the start of \`${entry.spec.command}\`; the command may or may not have run`,
          details: { host, closeCode: code },
        }),
      );
    }
    const orphans = [...this.#running.values()].filter((entry) => entry.socket === socket);
    if (orphans.length === 0 && this.#queuedSignals.length === 0) return;
    const current = this.#socket;
    // A newer connection is already up: follow the orphans there.
    if (current?.readyState === OPEN) this.#attach(current, orphans);
    else this.#reconnect(code, reason);
  }

  /** Resumes `entries` on `socket` from the last order each delivered. */
  #attach(socket: WebSocket, entries: Iterable<Entry>): void {
    for (const entry of entries) {
      entry.socket = socket;
      this.#send(socket, {
        type: 'attach',
        command_id: entry.commandId!,
        after_order: entry.lastOrder,
      });
    }
  }

  /** Reconnects with backoff and re-attaches every running command, or fails them all. */
  #reconnect(code: number, reason: string): void {
    if (this.#reconnecting) return;
    this.#reconnecting = true;
    const { host, reconnectTimeoutMs } = this.#options;
    const deadline = performance.now() + reconnectTimeoutMs;
    const backoff = new Backoff({ initialMs: 50, maxMs: 1_000 });
    const attempt = async (): Promise<WebSocket> => {
      let lastError: unknown = new Error(`closed with code ${code} ${reason}`.trim());
      while (!this.#closed) {
        try {
          const socket = await this.#connect();
          this.#attach(socket, this.#running.values());
          this.#reconnecting = false;
          return socket;
        } catch (error) {
          lastError = error;
          if (WorkspaceError.isInstance(error, 'AUTHENTICATION_ERROR')) {
            this.#failAll(error);
            throw error;
          }
        }
        const left = deadline - performance.now();
        if (left <= 0) break;
        await sleep(Math.min(backoff.next(), left));
      }
      const detail = lastError instanceof Error ? lastError.message : String(lastError);
      const error = new WorkspaceError({
        code: this.#closed ? 'WORKSPACE_CLOSED' : 'CONNECTION_ERROR',
        message: `lost the connection to the agent-server at ${host} and could not reconnect within ${reconnectTimeoutMs} ms: ${detail}`,
        cause: lastError,
        details: { host },
      });
      this.#queuedSignals.length = 0;
      this.#failAll(error);
      throw error;
    };
    this.#connecting = attempt().finally(() => {
      this.#reconnecting = false;
      this.#connecting = undefined;
    });
    // Failures reach every command through `fail`; nobody else has to observe this promise.
    this.#connecting.catch(() => {});
  }

  #signal(commandId: string, signal: ExecSignal): void {
    const socket = this.#socket;
    if (socket?.readyState === OPEN) {
      this.#send(socket, { type: 'signal', command_id: commandId, signal });
    } else if (!this.#closed) {
      this.#queuedSignals.push({ commandId, signal });
      // Best effort: a connection that never comes back fails the commands themselves.
      this.#open().catch(() => {});
    }
  }

  #send(socket: WebSocket, frame: ExecClientFrameWire | { type: 'auth'; session_api_key: string }) {
    socket.send(JSON.stringify(frame));
  }

  /** Fails every command; with `keepKills`, detached ones stay until their kill went out. */
  #failAll(error: WorkspaceError, keepKills = false): void {
    const entries = [...this.#starting.values(), ...this.#running.values()];
    this.#running.clear();
    for (const entry of entries) {
      if (!keepKills || entry.listener || entry.pendingSignal === undefined) {
        this.#starting.delete(entry.requestId);
      }
      entry.listener?.fail(error);
    }
  }

  /** True while a detached command's kill waits for its start confirmation. */
  #awaitingKill(): boolean {
    for (const entry of this.#starting.values()) {
      if (!entry.listener && entry.pendingSignal !== undefined) return true;
    }
    return false;
  }

  /** The typed error of an `error` frame. */
  #frameError(
    frame: Extract<ExecServerFrameWire, { type: 'error' }>,
    entry: Entry | undefined,
  ): WorkspaceError {
    const { host } = this.#options;
    const details = { host, serverCode: frame.code, commandId: frame.command_id };
    const starting = entry !== undefined && entry.commandId === undefined;
    if (
      frame.code === 'INVALID_CWD' ||
      (frame.code === 'FORBIDDEN' && /\bcwd\b/.test(frame.detail))
    ) {
      return new WorkspaceError({
        code: 'INVALID_CWD',
        message: `invalid cwd ${entry?.spec.cwd ?? ''}: ${frame.detail}`,
        details: { ...details, path: entry?.spec.cwd },
      });
    }
    switch (frame.code) {
      case 'SPAWN_ERROR':
        return new WorkspaceError({ code: 'SPAWN_ERROR', message: frame.detail, details });
      case 'UNKNOWN_COMMAND':
        return new WorkspaceError({
          code: 'CONNECTION_ERROR',
          message: `the agent-server at ${host} no longer knows the command after reconnecting (did it restart without its state?): ${frame.detail}`,
          details,
        });
      case 'INVALID_FRAME':
        // A refused start names the offending field of the caller's input.
        return new WorkspaceError({
          code: starting ? 'INVALID_ARGUMENT' : 'PROTOCOL_ERROR',
          message: `the agent-server at ${host} rejected ${starting ? 'the command' : 'an exec frame'}: ${frame.detail}`,
          details,
        });
      default:
        return new WorkspaceError({
          code: 'SERVER_ERROR',
          message: `the agent-server at ${host} failed the command (${frame.code}): ${frame.detail}`,
          details,
        });
    }
  }
}
