import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ExecClientFrameWire,
  ExecServerFrameWire,
  ExecSignal,
} from '@agent-workspace/protocol';
import { SOCKET_CLOSE_CODES } from '@agent-workspace/protocol/constants';
import type { RawData, WebSocket } from 'ws';
import { WorkspaceError } from '../errors/workspace-error.js';
import { Backoff } from '../internal/backoff.js';
import { CLOSED, connectExecSocket, OPEN } from './connect-exec-socket.js';
import { ExecCommands } from './exec-commands.js';
import type {
  ExecConnectionOptions,
  ExecEntry,
  ExecHandle,
  ExecListener,
  ExecStartSpec,
} from './exec-connection-types.js';
import { httpStatusError } from './http-status-error.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';

/** How long `close()` waits for the closing handshake before dropping the socket. */
const CLOSE_GRACE_MS = 1_000;

/**
 * The streaming-exec channel (`EXEC_STREAM_PATH`) of one agent-server: a single websocket, opened
 * lazily and shared by every command, authenticated with a first frame.
 *
 * When the connection drops while commands run, it reconnects with bounded backoff and sends
 * `attach {command_id, after_order}` for each, so output is neither lost nor repeated (frames
 * at or below the last delivered `order` are dropped). A command whose start was not yet
 * confirmed fails with `CONNECTION_ERROR` (it may or may not have run); if the server stays
 * away past `reconnectTimeoutMs`, every command fails with `CONNECTION_ERROR`.
 */
export class ExecConnection {
  readonly #options: ExecConnectionOptions;
  readonly #commands: ExecCommands;
  #socket: WebSocket | undefined;
  #connecting: Promise<WebSocket> | undefined;
  #reconnecting = false;
  #closed = false;
  /** Kills of detached commands waiting for the connection to come back. */
  readonly #queuedSignals: Array<{ commandId: string; signal: ExecSignal }> = [];

  constructor(options: ExecConnectionOptions) {
    this.#options = options;
    this.#commands = new ExecCommands(options.host, (commandId, signal) =>
      this.#signal(commandId, signal),
    );
  }

  /** Starts a command; its events go to `listener`. */
  start(spec: ExecStartSpec, listener: ExecListener): ExecHandle {
    const { starting, running } = this.#commands;
    const entry: ExecEntry = {
      requestId: randomBytes(8).toString('hex'),
      spec,
      listener,
      lastOrder: -1,
    };
    starting.set(entry.requestId, entry);
    this.#open().then(
      (socket) => {
        // Detached before it went out: never start it.
        if (starting.get(entry.requestId) !== entry || entry.listener === undefined) {
          starting.delete(entry.requestId);
          return;
        }
        if (socket.readyState !== OPEN) {
          starting.delete(entry.requestId);
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
        if (starting.get(entry.requestId) !== entry) return;
        starting.delete(entry.requestId);
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
        if (entry.commandId !== undefined) running.delete(entry.commandId);
        else if (entry.pendingSignal === undefined || entry.socket === undefined) {
          starting.delete(entry.requestId);
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
  /** Opens the socket ahead of the first command (shared with it if that comes meanwhile). */
  async connect(): Promise<void> {
    await this.#open();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const error = new WorkspaceError({
      code: 'WORKSPACE_CLOSED',
      message: 'the remote workspace was closed while the command ran',
    });
    this.#commands.failAll(error, true);
    const socket = this.#socket;
    if (socket?.readyState === OPEN && this.#commands.awaitingKill()) {
      await new Promise<void>((resolve) => {
        this.#commands.killsSent = resolve;
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

  /**
   * Opens, authenticates and wires up one socket; flushes the queued kills on it. The frame
   * schema is loaded first, so frames are parsed as they come.
   */
  async #connect(): Promise<WebSocket> {
    const { execServerFrameWireSchema } = await loadWireSchemas();
    return connectExecSocket(this.#options, {
      open: (socket) => {
        for (const { commandId, signal } of this.#queuedSignals.splice(0)) {
          this.#send(socket, { type: 'signal', command_id: commandId, signal });
        }
        if (this.#closed) {
          return new WorkspaceError({ code: 'WORKSPACE_CLOSED', message: 'workspace closed' });
        }
        this.#socket = socket;
        return undefined;
      },
      message: (socket, data, isBinary) =>
        this.#onMessage(socket, data, isBinary, execServerFrameWireSchema),
      close: (socket, code, reason) => this.#onClose(socket, code, reason),
    });
  }

  #onMessage(
    socket: WebSocket,
    data: RawData,
    isBinary: boolean,
    frames: WireSchemas['execServerFrameWireSchema'],
  ): void {
    let frame: ExecServerFrameWire;
    try {
      if (isBinary) throw new Error('binary frame');
      frame = frames.parse(JSON.parse(data.toString()));
    } catch (error) {
      this.#commands.failAll(
        new WorkspaceError({
          code: 'PROTOCOL_ERROR',
          message: `the agent-server at ${this.#options.host} sent a malformed exec frame: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        }),
      );
      socket.terminate();
      return;
    }
    this.#commands.dispatch(frame);
  }

  #onClose(socket: WebSocket, code: number, reason: string): void {
    if (this.#socket === socket) this.#socket = undefined;
    if (this.#closed) return;
    const { host } = this.#options;
    if (code === SOCKET_CLOSE_CODES.authenticationFailed) {
      this.#commands.failAll(
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
    const { starting, running } = this.#commands;
    for (const entry of [...starting.values()]) {
      if (entry.socket !== socket) continue;
      starting.delete(entry.requestId);
      entry.listener?.fail(
        new WorkspaceError({
          code: 'CONNECTION_ERROR',
          message: `the connection to the agent-server at ${host} dropped before it confirmed the start of \`${entry.spec.command}\`; the command may or may not have run`,
          details: { host, closeCode: code },
        }),
      );
    }
    const orphans = [...running.values()].filter((entry) => entry.socket === socket);
    if (orphans.length === 0 && this.#queuedSignals.length === 0) return;
    const current = this.#socket;
    // A newer connection is already up: follow the orphans there.
    if (current?.readyState === OPEN) this.#attach(current, orphans);
    else this.#reconnect(code, reason);
  }

  /** Resumes `entries` on `socket` from the last order each delivered. */
  #attach(socket: WebSocket, entries: Iterable<ExecEntry>): void {
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
          this.#attach(socket, this.#commands.running.values());
          this.#reconnecting = false;
          return socket;
        } catch (error) {
          lastError = error;
          if (WorkspaceError.isInstance(error, 'AUTHENTICATION_ERROR')) {
            this.#commands.failAll(error);
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
      this.#commands.failAll(error);
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

  #send(socket: WebSocket, frame: ExecClientFrameWire): void {
    socket.send(JSON.stringify(frame));
  }
}
