import type { ExecClientFrameWire, ExecServerFrameWire } from '@agent-workspace/protocol';
import { EXEC_STREAM_PATH, SOCKET_CLOSE_CODES } from '@agent-workspace/protocol/constants';
import type { AgentServerClient } from '../api/agent-server-client.js';
import { LineEditor } from './terminal-line-editor.js';
import { type ShellMark, TerminalOutputParser } from './terminal-output-parser.js';
import { TERMINAL_SHELL_SCRIPT } from './terminal-shell-script.js';

/** The connection of a {@link TerminalSession}, for a status line. */
export type TerminalStatus =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'connected' }
  | { readonly kind: 'reconnecting'; readonly inSeconds: number }
  | { readonly kind: 'failed'; readonly detail: string };

/** Options of {@link TerminalSession}. */
export interface TerminalSessionOptions {
  readonly client: AgentServerClient;
  /** Where the first shell starts, or `null` for the server's working directory. */
  readonly workingDir: string | null;
  /** Writes to the terminal's screen (text with ANSI sequences). */
  readonly write: (text: string) => void;
  readonly onStatus: (status: TerminalStatus) => void;
}

/** How long the shell may live (the exec timeout), in seconds: a day. */
const SHELL_TIMEOUT_SECONDS = 24 * 60 * 60;
/** Reconnect delays grow from the first to the last, doubling. */
const RETRY_FIRST_MS = 500;
const RETRY_LAST_MS = 10_000;

const DIM = (text: string): string => `\x1b[2m${text}\x1b[0m`;
const RED = (text: string): string => `\x1b[31m${text}\x1b[0m`;

/** The shell the terminal runs lines in: being started (`commandId` null), or running. */
interface Shell {
  readonly requestId: string;
  commandId: string | null;
  /** The last `order` received, for `attach` after a reconnect. */
  lastOrder: number;
  /** Lines to write once `started` names the command. */
  readonly pendingStdin: string[];
  readonly parser: TerminalOutputParser;
}

/**
 * A line-mode terminal on the exec socket (`EXEC_STREAM_PATH`; there is no PTY). One long-lived
 * bash (`TERMINAL_SHELL_SCRIPT`, `stdin: true`) runs each entered line, so `cd` and variables
 * persist; a prompt shows its directory after each line. Keys are edited and echoed locally
 * ({@link LineEditor}); Ctrl+C sends SIGINT to the running command, Ctrl+D closes the shell's
 * stdin. A shell that exits is started again (in its last directory) by the next line. A dropped
 * socket reconnects and re-attaches after the last `order` received, so no output is lost or
 * repeated. Commands run through the server's confinement like every exec.
 */
export class TerminalSession {
  readonly #options: TerminalSessionOptions;
  readonly #editor = new LineEditor();
  #socket: WebSocket | null = null;
  #open = false;
  /** Frames waiting for the socket to (re)open. */
  #outbox: ExecClientFrameWire[] = [];
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #retryMs = RETRY_FIRST_MS;
  #disposed = false;
  #everConnected = false;
  #shell: Shell | null = null;
  #requests = 0;
  /** A line is running: Ctrl+C signals it, and its `done` mark shows the prompt. */
  #busy = false;
  /**
   * Lines entered while one ran: the shell runs them next unless the running command reads them
   * from stdin; each `done` mark shows the next after its prompt, as a shell's line editor would.
   */
  readonly #typedAhead: string[] = [];
  /** The shell's last directory, where a restarted shell starts. */
  #cwd: string | null = null;
  #lastStatus = 0;
  /** The cursor is at the start of a line (a prompt needs no newline first). */
  #atLineStart = true;

  constructor(options: TerminalSessionOptions) {
    this.#options = options;
    this.#connect();
  }

  /** Handles the terminal's input (xterm's `onData`). */
  input(data: string): void {
    for (const effect of this.#editor.input(data)) {
      if (effect.kind === 'echo') this.#write(effect.text);
      else if (effect.kind === 'line') this.#runLine(effect.text);
      else if (effect.kind === 'interrupt') this.#interrupt();
      else if (this.#shell?.commandId) {
        this.#send({ type: 'close_stdin', command_id: this.#shell.commandId });
      }
    }
  }

  /** Closes the socket; the server ends the shell after its grace for reconnecting. */
  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#retryTimer);
    this.#socket?.close();
    this.#socket = null;
  }

  #connect(): void {
    this.#options.onStatus({ kind: 'connecting' });
    const socket = this.#options.client.socket(EXEC_STREAM_PATH);
    this.#socket = socket;
    socket.addEventListener('open', () => this.#onOpen());
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string')
        this.#onFrame(JSON.parse(event.data) as ExecServerFrameWire);
    });
    socket.addEventListener('close', (event) => this.#onClose(event));
  }

  #onOpen(): void {
    this.#open = true;
    this.#retryMs = RETRY_FIRST_MS;
    this.#options.onStatus({ kind: 'connected' });
    const shell = this.#shell;
    if (shell?.commandId) {
      this.#socketSend({
        type: 'attach',
        command_id: shell.commandId,
        after_order: shell.lastOrder,
      });
    } else if (!this.#everConnected) {
      this.#startShell();
    }
    this.#everConnected = true;
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const frame of outbox) this.#socketSend(frame);
  }

  #onClose(event: CloseEvent): void {
    this.#open = false;
    if (this.#disposed) return;
    if (event.code === SOCKET_CLOSE_CODES.authenticationFailed) {
      const detail = 'the server refused the session key';
      this.#options.onStatus({ kind: 'failed', detail });
      this.#writeLine(RED(`[${detail}]`));
      return;
    }
    // A shell whose `start` was sent but not answered is lost with the connection (the server
    // ends it); one still in the outbox starts on the next connection.
    const unsent = this.#outbox.some((frame) => frame.type === 'start');
    if (this.#shell && !this.#shell.commandId && !unsent) this.#loseShell('the connection closed');
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_LAST_MS);
    this.#options.onStatus({ kind: 'reconnecting', inSeconds: Math.ceil(delay / 1000) });
    this.#retryTimer = setTimeout(() => this.#connect(), delay);
  }

  #onFrame(frame: ExecServerFrameWire): void {
    const shell = this.#shell;
    switch (frame.type) {
      case 'started':
        if (shell && frame.request_id === shell.requestId) {
          shell.commandId = frame.command_id;
          for (const data of shell.pendingStdin.splice(0)) {
            this.#send({ type: 'stdin', command_id: frame.command_id, data });
          }
        }
        return;
      case 'output':
        if (!shell || frame.command_id !== shell.commandId || frame.order <= shell.lastOrder)
          return;
        shell.lastOrder = frame.order;
        if (frame.stream === 'stderr') {
          this.#write(frame.data);
          return;
        }
        for (const part of shell.parser.push(frame.data)) {
          if (part.kind === 'text') this.#write(part.text);
          else this.#onMark(part.mark);
        }
        return;
      case 'exit':
        if (!shell || frame.command_id !== shell.commandId) return;
        this.#write(shell.parser.flush());
        this.#loseShell(
          frame.timeout_occurred
            ? 'the shell reached its time limit'
            : `the shell exited with status ${frame.exit_code}`,
          false,
        );
        return;
      case 'error':
        this.#onError(frame);
        return;
    }
  }

  #onError(frame: Extract<ExecServerFrameWire, { type: 'error' }>): void {
    const shell = this.#shell;
    const message = `${frame.code}: ${frame.detail}`;
    if (shell && frame.request_id !== null && frame.request_id === shell.requestId) {
      // The shell could not start; a vanished directory is not tried again.
      if (frame.field === 'cwd') this.#cwd = null;
      this.#loseShell(`cannot start the shell (${message})`);
    } else if (
      shell &&
      frame.command_id === shell.commandId &&
      (frame.code === 'UNKNOWN_COMMAND' || frame.code === 'HISTORY_EXPIRED')
    ) {
      this.#loseShell(`the shell is gone (${message})`);
    } else {
      this.#writeLine(RED(`[${message}]`));
    }
  }

  #onMark(mark: ShellMark): void {
    this.#cwd = mark.cwd;
    // A line entered before the shell was ready shows its prompt once it has run.
    if (mark.kind === 'ready' && this.#busy) return;
    this.#lastStatus = mark.exitCode;
    const next = this.#typedAhead.shift();
    this.#busy = next !== undefined;
    this.#prompt(next);
  }

  /** Forgets the shell (the next line starts another), says why, and shows a prompt. */
  #loseShell(reason: string, failure = true): void {
    this.#shell = null;
    this.#busy = false;
    this.#typedAhead.length = 0;
    this.#lastStatus = 0;
    this.#writeLine(failure ? RED(`[${reason}]`) : DIM(`[${reason}]`));
    this.#prompt();
  }

  #startShell(): Shell {
    this.#requests += 1;
    const shell: Shell = {
      requestId: `terminal-${this.#requests}`,
      commandId: null,
      lastOrder: -1,
      pendingStdin: [],
      parser: new TerminalOutputParser(),
    };
    this.#shell = shell;
    const cwd = this.#cwd ?? this.#options.workingDir;
    this.#send({
      type: 'start',
      request_id: shell.requestId,
      command: TERMINAL_SHELL_SCRIPT,
      ...(cwd === null ? {} : { cwd }),
      stdin: true,
      timeout: SHELL_TIMEOUT_SECONDS,
    });
    return shell;
  }

  #runLine(line: string): void {
    if (!this.#busy && !line.trim()) {
      this.#prompt();
      return;
    }
    if (this.#busy) this.#typedAhead.push(line);
    this.#busy = true;
    const shell = this.#shell ?? this.#startShell();
    const data = `${line}\n`;
    if (shell.commandId) this.#send({ type: 'stdin', command_id: shell.commandId, data });
    else shell.pendingStdin.push(data);
  }

  #interrupt(): void {
    const commandId = this.#shell?.commandId;
    if (this.#busy && commandId)
      this.#send({ type: 'signal', command_id: commandId, signal: 'SIGINT' });
    else if (!this.#busy) this.#prompt();
  }

  /** The prompt (`[status] dir $ `), then `next` (a line typed ahead) or the line being typed. */
  #prompt(next?: string): void {
    const cwd = this.#cwd ?? this.#options.workingDir;
    const name = cwd === null ? '' : cwd.replace(/\/+$/, '').split('/').pop() || '/';
    const status = this.#lastStatus === 0 ? '' : `${RED(`[${this.#lastStatus}]`)} `;
    const place = name ? `\x1b[1;34m${name}\x1b[0m ` : '';
    const line = next === undefined ? this.#editor.line : `${next}\r\n${this.#editor.line}`;
    this.#write(`${this.#atLineStart ? '' : '\r\n'}${status}${place}$ ${line}`);
  }

  #writeLine(text: string): void {
    this.#write(`${this.#atLineStart ? '' : '\r\n'}${text}\r\n`);
  }

  #write(text: string): void {
    if (!text) return;
    this.#atLineStart = text.endsWith('\n');
    this.#options.write(text);
  }

  /** Sends now, or once the socket is open again. */
  #send(frame: ExecClientFrameWire): void {
    if (this.#open) this.#socketSend(frame);
    else this.#outbox.push(frame);
  }

  #socketSend(frame: ExecClientFrameWire): void {
    this.#socket?.send(JSON.stringify(frame));
  }
}
