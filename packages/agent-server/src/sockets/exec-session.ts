import {
  type BashOutputWire,
  DEFAULT_BASH_TIMEOUT_SECONDS,
  type ExecClientFrameWire,
  type ExecErrorCode,
  type ExecServerFrameWire,
  execClientFrameWireSchema,
} from '@agent-workspace/protocol';
import type { WebSocket } from '@fastify/websocket';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerContext } from '../app/server-context.js';
import type { RunningBashCommand } from '../bash/bash-command-types.js';
import type { CommandExit, StoredBashEvent } from '../bash/bash-event-records.js';
import { describeStartError } from '../bash/describe-start-error.js';
import type { ClientFrame } from './authenticate-socket.js';
import { describeFrameError } from './describe-frame-error.js';
import { SocketSender } from './socket-sender.js';

/** Unwritten stdin bytes of one socket above which it stops reading frames until they drain. */
export const MAX_STDIN_BACKLOG_BYTES = 1024 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type Frame<T extends ExecClientFrameWire['type']> = Extract<ExecClientFrameWire, { type: T }>;
type ErrorFrame = Extract<ExecServerFrameWire, { type: 'error' }>;

/**
 * One authenticated exec-socket connection (`EXEC_STREAM_PATH`). It follows the commands it started or attached
 * to by `order`: output is pulled from the event store, so a replay (`attach`) and live events
 * join without loss or duplication, and a slow client only delays its own frames (a follower
 * whose next events were evicted gets `HISTORY_EXPIRED`). Closing the socket leaves commands
 * running.
 */
export class ExecSession {
  readonly #socket: WebSocket;
  readonly #context: ServerContext;
  readonly #log: FastifyBaseLogger;
  readonly #sender: SocketSender;
  /** Followed commands → last `order` sent. */
  readonly #follows = new Map<string, number>();
  /** This connection's holds on commands it started or attached to (see `BashEventService.follow`). */
  readonly #holds = new Map<string, () => void>();
  #unsubscribe: (() => void) | undefined;
  #stdinBacklog = 0;
  #paused = false;

  constructor(socket: WebSocket, context: ServerContext, log: FastifyBaseLogger) {
    this.#socket = socket;
    this.#context = context;
    this.#log = log;
    this.#sender = new SocketSender(socket, () => {
      for (const commandId of this.#follows.keys()) this.#pump(commandId);
    });
  }

  /** Starts listening for events (call once authenticated). */
  open(): void {
    this.#unsubscribe = this.#context.bash.subscribe((stored) => this.#onEvent(stored));
  }

  /**
   * Stops listening and lets go of the commands it followed: they carry on if started detached,
   * and are otherwise ended after the server's grace unless another connection attaches.
   */
  close(): void {
    this.#unsubscribe?.();
    this.#follows.clear();
    for (const release of this.#holds.values()) release();
    this.#holds.clear();
  }

  /** Handles one client frame. */
  handle(frame: ClientFrame): void {
    if (!frame.ok) {
      this.#error(null, null, 'INVALID_FRAME', frame.error);
      return;
    }
    const parsed = execClientFrameWireSchema.safeParse(frame.value);
    if (!parsed.success) {
      const { request_id, command_id } = (frame.value ?? {}) as Record<string, unknown>;
      this.#error(
        typeof command_id === 'string' && /^[0-9a-f]{32}$/.test(command_id) ? command_id : null,
        typeof request_id === 'string' ? request_id.slice(0, 200) : null,
        'INVALID_FRAME',
        describeFrameError(parsed.error, frame.value),
      );
      return;
    }
    const data = parsed.data;
    switch (data.type) {
      case 'start':
        void this.#start(data);
        return;
      case 'stdin':
        this.#stdin(data);
        return;
      case 'close_stdin':
        this.#withStdin(data.command_id, (running) => running.handle.closeStdin());
        return;
      case 'signal':
        this.#withRunning(data.command_id, (running) => running.handle.signal(data.signal));
        return;
      case 'attach':
        this.#attach(data);
        return;
    }
  }

  async #start(frame: Frame<'start'>): Promise<void> {
    const requestId = frame.request_id ?? null;
    this.#context.touch();
    try {
      const started = await this.#context.bash.startCommand({
        command: frame.command,
        cwd: frame.cwd ?? undefined,
        timeoutSeconds: frame.timeout ?? DEFAULT_BASH_TIMEOUT_SECONDS,
        env: frame.env ?? undefined,
        stdin: frame.stdin === true,
        detached: frame.detached === true,
      });
      const commandId = started.event.id;
      this.#holds.set(commandId, started.release);
      // The client left while the command started: nobody will learn its id.
      if (this.#socket.readyState !== this.#socket.OPEN) {
        this.#holds.delete(commandId);
        started.release();
        return;
      }
      this.#send({
        type: 'started',
        command_id: commandId,
        request_id: requestId,
        pid: started.pid ?? null,
      });
      this.#follows.set(commandId, -1);
      this.#pump(commandId);
    } catch (error) {
      const failure = describeStartError(error);
      if (!failure) {
        this.#log.error({ err: error }, 'exec socket: start failed');
        this.#error(null, requestId, 'INTERNAL_ERROR', String(error));
        return;
      }
      this.#error(null, requestId, failure.execCode, failure.detail, failure.field);
    }
  }

  #stdin(frame: Frame<'stdin'>): void {
    const base64 = frame.encoding === 'base64';
    if (base64 && !BASE64.test(frame.data)) {
      this.#error(frame.command_id, null, 'INVALID_FRAME', 'data: Input should be valid base64');
      return;
    }
    this.#withStdin(frame.command_id, (running) => {
      const data = base64 ? Buffer.from(frame.data, 'base64') : frame.data;
      const size = Buffer.byteLength(data);
      this.#stdinBacklog += size;
      if (!this.#paused && this.#stdinBacklog > MAX_STDIN_BACKLOG_BYTES) {
        this.#paused = true;
        this.#socket.pause();
      }
      running.handle
        .writeStdin(data)
        .catch((error: unknown) =>
          this.#error(frame.command_id, null, 'STDIN_CLOSED', (error as Error).message),
        )
        .finally(() => {
          this.#stdinBacklog -= size;
          if (this.#paused && this.#stdinBacklog <= MAX_STDIN_BACKLOG_BYTES / 2) {
            this.#paused = false;
            this.#socket.resume();
          }
        });
    });
  }

  #attach(frame: Frame<'attach'>): void {
    const { command_id: commandId, after_order: afterOrder } = frame;
    const { bash } = this.#context;
    if (!bash.commandRecord(commandId)) {
      if (bash.wasDropped(commandId)) {
        this.#error(commandId, null, 'HISTORY_EXPIRED', 'the events of this command were dropped');
      } else {
        this.#error(commandId, null, 'UNKNOWN_COMMAND', `no command with id ${commandId}`);
      }
      return;
    }
    this.#follows.set(commandId, afterOrder);
    if (!this.#holds.has(commandId)) this.#holds.set(commandId, bash.follow(commandId));
    this.#pump(commandId);
  }

  /** Runs `action` on a running command that was started with stdin, else sends an error. */
  #withStdin(commandId: string, action: (running: RunningBashCommand) => void): void {
    this.#withRunning(commandId, (running) => {
      if (running.stdin) action(running);
      else
        this.#error(
          commandId,
          null,
          'STDIN_CLOSED',
          'the command was not started with stdin: true',
        );
    });
  }

  /** Runs `action` on a running command, else sends `NOT_RUNNING` or `UNKNOWN_COMMAND`. */
  #withRunning(commandId: string, action: (running: RunningBashCommand) => void): void {
    this.#context.touch();
    const running = this.#context.bash.running(commandId);
    if (running) action(running);
    else if (
      this.#context.bash.commandRecord(commandId) ||
      this.#context.bash.wasDropped(commandId)
    ) {
      this.#error(commandId, null, 'NOT_RUNNING', 'the command has finished');
    } else {
      this.#error(commandId, null, 'UNKNOWN_COMMAND', `no command with id ${commandId}`);
    }
  }

  #onEvent(stored: StoredBashEvent): void {
    if (stored.event.kind === 'BashOutput' && this.#follows.has(stored.event.command_id)) {
      this.#pump(stored.event.command_id);
    }
  }

  /** Sends the followed command's events after the last order sent, while the socket keeps up. */
  #pump(commandId: string): void {
    const after = this.#follows.get(commandId);
    if (after === undefined) return;
    const record = this.#context.bash.commandRecord(commandId);
    // A marker stands for dropped outputs: a follower behind it gets the marker and goes on.
    const lost = record && after + 1 < record.firstOrder && !record.outputs[0]?.marker;
    if (!record || lost) {
      this.#follows.delete(commandId);
      const first = record ? `order ${record.firstOrder}` : 'the end';
      this.#error(
        commandId,
        null,
        'HISTORY_EXPIRED',
        `events after order ${after} were dropped (retention or size limit) up to ${first}`,
      );
      return;
    }
    const start = Math.max(0, after + 1 - record.firstOrder);
    for (let index = start; index < record.outputs.length; index++) {
      if (this.#sender.blocked) return;
      const event = (record.outputs[index] as StoredBashEvent).event as BashOutputWire;
      this.#follows.set(commandId, event.order);
      this.#send(this.#frameOf(event, record.exit));
    }
    if (record.exit && (this.#follows.get(commandId) ?? -1) >= record.nextOrder - 1) {
      this.#follows.delete(commandId);
    }
  }

  #frameOf(event: BashOutputWire, exit: CommandExit | undefined): ExecServerFrameWire {
    const { command_id, order } = event;
    if (event.exit_code !== null) {
      return {
        type: 'exit',
        command_id,
        order,
        exit_code: event.exit_code,
        timeout_occurred: exit?.timeoutOccurred ?? false,
        duration_ms: exit?.durationMs ?? 0,
        ...(exit?.terminationReason && { termination_reason: exit.terminationReason }),
      };
    }
    return event.stdout !== null
      ? { type: 'output', command_id, order, stream: 'stdout', data: event.stdout }
      : { type: 'output', command_id, order, stream: 'stderr', data: event.stderr ?? '' };
  }

  #error(
    commandId: string | null,
    requestId: string | null,
    code: ExecErrorCode,
    detail: string,
    field?: string,
  ): void {
    const frame: ErrorFrame = {
      type: 'error',
      command_id: commandId,
      request_id: requestId,
      code,
      ...(field === undefined ? {} : { field }),
      detail,
    };
    this.#send(frame);
  }

  #send(frame: ExecServerFrameWire): void {
    this.#sender.send(JSON.stringify(frame));
  }
}
