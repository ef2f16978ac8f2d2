import type { ExecServerFrameWire, ExecSignal } from '@agent-workspace/protocol';
import type { WorkspaceError } from '../errors/workspace-error.js';
import type { ExecEntry } from './exec-connection-types.js';
import { execFrameError, execFrameOutcome } from './exec-frame-error.js';

/**
 * The commands of one {@link ExecConnection}, by request id until `started` and by command id
 * until `exit`; applies the server's frames to them.
 */
export class ExecCommands {
  /** By request id, until `started`. */
  readonly starting = new Map<string, ExecEntry>();
  /** By command id, until `exit`. */
  readonly running = new Map<string, ExecEntry>();
  /** Called by `close()`'s wait once no kill waits for a start confirmation. */
  killsSent: (() => void) | undefined;
  readonly #host: string;
  readonly #signal: (commandId: string, signal: ExecSignal) => void;

  /** `signal` sends a kill to a started command; `host` is named in errors. */
  constructor(host: string, signal: (commandId: string, signal: ExecSignal) => void) {
    this.#host = host;
    this.#signal = signal;
  }

  /** Delivers one (parsed) server frame to the command it concerns. */
  dispatch(frame: ExecServerFrameWire): void {
    switch (frame.type) {
      case 'started': {
        const entry = this.starting.get(frame.request_id ?? '');
        if (!entry) return;
        this.starting.delete(entry.requestId);
        entry.commandId = frame.command_id;
        if (entry.pendingSignal) this.#signal(frame.command_id, entry.pendingSignal);
        if (entry.listener) this.running.set(frame.command_id, entry);
        if (!this.awaitingKill()) this.killsSent?.();
        return;
      }
      case 'output': {
        const entry = this.running.get(frame.command_id);
        if (!entry || frame.order <= entry.lastOrder) return;
        entry.lastOrder = frame.order;
        entry.listener?.output(frame.stream, frame.data);
        return;
      }
      case 'exit': {
        const entry = this.running.get(frame.command_id);
        if (!entry) return;
        this.running.delete(frame.command_id);
        entry.listener?.exit({
          exitCode: frame.exit_code,
          timeoutOccurred: frame.timeout_occurred,
          durationMs: frame.duration_ms,
          ...(frame.termination_reason && { terminationReason: frame.termination_reason }),
        });
        return;
      }
      case 'error': {
        const entry =
          (frame.request_id !== null ? this.starting.get(frame.request_id) : undefined) ??
          (frame.command_id !== null ? this.running.get(frame.command_id) : undefined);
        const code = execFrameOutcome(frame, entry !== undefined && entry.commandId === undefined);
        // An answer to a late kill of a command that already ended; its exit frame follows.
        if (code === null) return;
        if (entry) {
          this.starting.delete(entry.requestId);
          if (entry.commandId !== undefined) this.running.delete(entry.commandId);
          entry.listener?.fail(execFrameError(frame, code, entry, this.#host));
        } else if (frame.request_id === null && frame.command_id === null) {
          this.failAll(execFrameError(frame, code, undefined, this.#host));
        }
        // Otherwise it concerns a command no one waits for any more (e.g. a late kill).
        return;
      }
    }
  }

  /** Fails every command; with `keepKills`, detached ones stay until their kill went out. */
  failAll(error: WorkspaceError, keepKills = false): void {
    const entries = [...this.starting.values(), ...this.running.values()];
    this.running.clear();
    for (const entry of entries) {
      if (!keepKills || entry.listener || entry.pendingSignal === undefined) {
        this.starting.delete(entry.requestId);
      }
      entry.listener?.fail(error);
    }
  }

  /** True while a detached command's kill waits for its start confirmation. */
  awaitingKill(): boolean {
    for (const entry of this.starting.values()) {
      if (!entry.listener && entry.pendingSignal !== undefined) return true;
    }
    return false;
  }
}
