import type { CommandResult, ExecSignal } from '@agent-workspace/protocol';
import type { WebSocket } from 'ws';
import type { WorkspaceError } from '../errors/workspace-error.js';

/** Options of {@link ExecConnection}. */
export interface ExecConnectionOptions {
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

/** What {@link ExecConnection.start} runs. */
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
  exit(exit: Omit<CommandResult, 'command' | 'stdout' | 'stderr'>): void;
  fail(error: WorkspaceError): void;
}

/** Control of a command started with {@link ExecConnection.start}. */
export interface ExecHandle {
  /** Sends `signal` to the command's process group (after its start is confirmed if need be). */
  kill(signal: ExecSignal): void;
  /** Stops delivering events; a queued kill is still sent. */
  detach(): void;
  /** True while the connection is being re-established. */
  readonly reconnecting: boolean;
}

/** Internal state of one command of an {@link ExecConnection}. */
export interface ExecEntry {
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
