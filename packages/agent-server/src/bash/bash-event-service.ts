import {
  type CommandResult,
  DEFAULT_MAX_OUTPUT_BYTES,
  invalidArgument,
  type LocalCommandHandle,
  startLocalCommand,
  WorkspaceError,
} from '@agent-workspace/core';
import type {
  BashCommandWire,
  BashEventSearchQuery,
  BashOutputWire,
} from '@agent-workspace/protocol';
import { BashEventLog } from './bash-event-log.js';
import type { AppendedBashEvent, CommandRecord, StoredBashEvent } from './bash-event-records.js';
import { BashEventStore } from './bash-event-store.js';
import { commandEnvironment } from './command-environment.js';
import { OutputCoalescer } from './output-coalescer.js';
import type { StoredEventWire } from './persisted-bash-event.js';

/** Grace between SIGTERM and SIGKILL for commands still running at `close()`. */
export const CLOSE_GRACE_MS = 1000;

/** Log bytes beyond twice the live events (plus this) trigger a compaction. */
const COMPACTION_SLACK_BYTES = 1024 * 1024;

/** Options of {@link BashEventService}. */
export interface BashEventServiceOptions {
  /** Default cwd of commands. */
  workingDir: string;
  /** Where history is persisted; unset keeps it in memory. */
  stateDir?: string | undefined;
  /** Events older than this are dropped (checked periodically). */
  retentionSeconds: number;
  /** Bound on the size of kept events (as logged); the oldest finished commands go first. */
  maxBytes: number;
  /** Receives persistence failures and warnings; default: a process warning. */
  onError?: ((error: unknown) => void) | undefined;
}

/** A command to run. */
export interface BashCommandRequest {
  command: string;
  /** Absolute working directory; default `workingDir`. */
  cwd?: string | undefined;
  /** Seconds before the process tree is killed; fractions allowed. */
  timeoutSeconds: number;
  /** Variables merged over the server's environment (which never includes session keys). */
  env?: Record<string, string> | undefined;
  /** Keep stdin open for {@link RunningBashCommand.handle} writes; otherwise it reads EOF. */
  stdin?: boolean | undefined;
  /** Keep the whole output (each stream capped at 10 MiB, tail kept) for `completion`. */
  captureOutput?: boolean | undefined;
}

/** How a command ended. */
export interface BashCommandCompletion {
  /** Its final `BashOutput` (exit code set, no output). */
  final: BashOutputWire;
  /** Exit details; `stdout`/`stderr` hold the whole output only with `captureOutput`. */
  result: CommandResult;
}

/** A command that was started. */
export interface StartedBashCommand {
  event: BashCommandWire;
  pid: number | undefined;
  /** Resolves after the final event was recorded; never rejects. */
  completion: Promise<BashCommandCompletion>;
}

/** Control over a running command. */
export interface RunningBashCommand {
  handle: LocalCommandHandle;
  /** True when it was started with `stdin`. */
  stdin: boolean;
  completion: Promise<BashCommandCompletion>;
}

/** Paged search result of {@link BashEventService.search}. */
export interface BashEventSearchResult {
  items: StoredEventWire[];
  nextPageId: string | null;
}

/** A listener of new events. */
export type BashEventListener = (event: StoredBashEvent) => void;

/** Valid environment variable name: no `=` and no NUL, not empty. */
const ENV_NAME = /^[^=\0]+$/;

/**
 * Runs bash commands and keeps their events (the OpenHands bash service, fixed).
 *
 * - A command gets a `BashCommand` event, then `BashOutput` events as output is produced
 *   (see {@link OutputCoalescer}: ≤ 20 ms late, ≤ 64 Ki characters, one stream each), then a
 *   final `BashOutput` with the exit code (-1 on timeout or spawn error) and no output.
 * - History lives in a {@link BashEventStore} bounded by age and size; with `stateDir` it is
 *   also logged ({@link BashEventLog}), compacted at start and when mostly dead, and reloaded.
 * - Listeners hear about every new event; they pull what they send from the store.
 */
export class BashEventService {
  readonly options: BashEventServiceOptions;
  readonly #store: BashEventStore;
  readonly #running = new Map<string, RunningBashCommand>();
  readonly #listeners = new Set<BashEventListener>();
  readonly #onError: (error: unknown) => void;
  #log: BashEventLog | undefined;
  #purgeTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: BashEventServiceOptions) {
    this.options = options;
    this.#store = new BashEventStore({ maxBytes: options.maxBytes });
    this.#onError =
      options.onError ??
      ((error) => process.emitWarning(`bash event service: ${errorMessage(error)}`));
  }

  /** Loads persisted history (if any) and starts the retention loop. */
  async start(): Promise<void> {
    const { stateDir, retentionSeconds } = this.options;
    if (stateDir !== undefined) {
      const { events, invalidLines } = await BashEventLog.read(stateDir);
      const skipped = this.#store.restore(events) + invalidLines;
      if (skipped > 0) this.#onError(new Error(`skipped ${skipped} unreadable logged events`));
      for (const commandId of this.#store.unfinishedCommands()) {
        // The server stopped without close(): the command is gone.
        this.#store.addOutput(commandId, {
          stdout: null,
          stderr: 'agent-server stopped before the command finished',
        });
        this.#store.addOutput(
          commandId,
          { stdout: null, stderr: null },
          { exitCode: -1, timeoutOccurred: false, durationMs: 0 },
        );
      }
      this.#purge();
      const log = new BashEventLog(stateDir, this.#onError);
      await log.open(this.#store.lines(), this.#store.bytes);
      this.#log = log;
    }
    const intervalMs = Math.min(60_000, Math.max(100, (retentionSeconds * 1000) / 4));
    this.#purgeTimer = setInterval(() => this.#purge(), intervalMs).unref();
  }

  /**
   * Starts a command and records its `BashCommand` event.
   * @throws WorkspaceError `INVALID_CWD` (nothing recorded), `INVALID_ARGUMENT` (a field named
   * in `details.field`), `WORKSPACE_CLOSED` after `close()`.
   */
  startCommand(request: BashCommandRequest): StartedBashCommand {
    if (this.#closing) {
      throw new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: 'Bash event service is not available',
      });
    }
    for (const name of Object.keys(request.env ?? {})) {
      if (!ENV_NAME.test(name))
        throw invalidArgument(`env.${name}`, 'is not a valid variable name');
    }
    let commandId = '';
    const coalescer = new OutputCoalescer((stream, text) => {
      this.#add(
        this.#store.addOutput(
          commandId,
          stream === 'stdout' ? { stdout: text, stderr: null } : { stdout: null, stderr: text },
        ),
      );
    });
    const handle = startLocalCommand({
      command: request.command,
      cwd: request.cwd ?? this.options.workingDir,
      timeoutMs: request.timeoutSeconds * 1000,
      env: commandEnvironment(request.env),
      extendEnv: false,
      stdin: request.stdin ? 'pipe' : 'ignore',
      maxOutputBytes: request.captureOutput ? DEFAULT_MAX_OUTPUT_BYTES : 0,
      onStdout: (chunk) => coalescer.write('stdout', chunk),
      onStderr: (chunk) => coalescer.write('stderr', chunk),
    });
    const { stored } = this.#add(
      this.#store.addCommand({
        command: request.command,
        cwd: request.cwd ?? null,
        timeout: request.timeoutSeconds,
      }),
    );
    const event = stored.event as BashCommandWire;
    commandId = event.id;
    const finish = (result: CommandResult): BashCommandCompletion => {
      coalescer.flush();
      const { exitCode, timeoutOccurred, durationMs } = result;
      const final = this.#add(
        this.#store.addOutput(
          commandId,
          { stdout: null, stderr: null },
          { exitCode, timeoutOccurred, durationMs },
        ),
      ).stored.event as BashOutputWire;
      this.#running.delete(commandId);
      return { final, result };
    };
    const completion = handle.result.then(finish, (error: unknown) => {
      coalescer.flush();
      const stderr = `Error executing command: ${errorMessage(error)}`;
      this.#add(this.#store.addOutput(commandId, { stdout: null, stderr }));
      return finish({
        command: request.command,
        exitCode: -1,
        stdout: '',
        stderr,
        timeoutOccurred: false,
        durationMs: 0,
      });
    });
    this.#running.set(commandId, { handle, stdin: request.stdin === true, completion });
    return { event, pid: handle.pid, completion };
  }

  /** The running command with this id. */
  running(commandId: string): RunningBashCommand | undefined {
    return this.#running.get(commandId);
  }

  /** The event with this 32-hex id. */
  get(eventId: string): StoredEventWire | undefined {
    return this.#store.get(eventId)?.event;
  }

  /** One page of events; see {@link BashEventStore.search}. */
  search(query: BashEventSearchQuery): BashEventSearchResult {
    const page = this.#store.search(query);
    return { items: page.items.map((stored) => stored.event), nextPageId: page.nextPageId };
  }

  /** Deletes the history of finished commands; returns how many events went. */
  clear(): number {
    const count = this.#store.clearFinished();
    if (count > 0) this.#log?.rewrite(this.#store.lines(), this.#store.bytes);
    return count;
  }

  /** What is kept about a command (its outputs are in `order`). */
  commandRecord(commandId: string): CommandRecord | undefined {
    return this.#store.record(commandId);
  }

  /** True when the command existed but all its events were dropped. */
  wasDropped(commandId: string): boolean {
    return this.#store.wasDropped(commandId);
  }

  /** `seq` of the newest event. */
  get lastSeq(): number {
    return this.#store.lastSeq;
  }

  /** Highest `seq` dropped by retention or size bounds. */
  get evictedThrough(): number {
    return this.#store.evictedThrough;
  }

  /** Up to `max` events after `afterSeq`, oldest first. */
  eventsAfter(afterSeq: number, max: number): StoredBashEvent[] {
    return this.#store.eventsAfter(afterSeq, max);
  }

  /** Calls `listener` after each new event; returns the unsubscribe function. */
  subscribe(listener: BashEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Ends running commands (SIGTERM to each process group, SIGKILL after {@link CLOSE_GRACE_MS}),
   * records their final events, flushes the log and stops timers. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    clearInterval(this.#purgeTimer);
    const running = [...this.#running.values()];
    for (const command of running) command.handle.signal('SIGTERM');
    const kill = setTimeout(() => {
      for (const command of this.#running.values()) command.handle.signal('SIGKILL');
    }, CLOSE_GRACE_MS);
    await Promise.all(running.map((command) => command.completion));
    clearTimeout(kill);
    await this.#log?.close();
    this.#listeners.clear();
  }

  /** Persists and publishes a new event. */
  #add(appended: AppendedBashEvent): AppendedBashEvent {
    const log = this.#log;
    if (log) {
      log.append(appended.line);
      if (log.fileBytes > 2 * this.#store.bytes + COMPACTION_SLACK_BYTES) {
        log.rewrite(this.#store.lines(), this.#store.bytes);
      }
    }
    for (const listener of this.#listeners) {
      try {
        listener(appended.stored);
      } catch (error) {
        this.#onError(error);
      }
    }
    return appended;
  }

  /** Drops events older than the retention period. */
  #purge(): void {
    const cutoff = (Date.now() - this.options.retentionSeconds * 1000) * 1000;
    if (this.#store.purgeBefore(cutoff) === 0) return;
    const log = this.#log;
    if (log && log.fileBytes > 2 * this.#store.bytes + COMPACTION_SLACK_BYTES) {
      log.rewrite(this.#store.lines(), this.#store.bytes);
    }
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
