import {
  type CommandResult,
  DEFAULT_MAX_OUTPUT_BYTES,
  WorkspaceError,
} from '@agent-workspace/core';
import { childEnvironment, messageOf } from '@agent-workspace/core/internal';
import {
  type BashCommandWire,
  type BashEventSearchQuery,
  type BashOutputWire,
  newHexId,
} from '@agent-workspace/protocol';
import type {
  BashCommandCompletion,
  BashCommandRequest,
  BashEventListener,
  BashEventSearchResult,
  RunningBashCommand,
  StartedBashCommand,
} from './bash-command-types.js';
import { BashEventLog } from './bash-event-log.js';
import type { AppendedBashEvent, CommandRecord, StoredBashEvent } from './bash-event-records.js';
import type { BashEventServiceOptions } from './bash-event-service-options.js';
import { BashEventStore } from './bash-event-store.js';
import { CommandHolds } from './command-holds.js';
import { CommandOutputMasking } from './command-output-masking.js';
import { launchBashCommand } from './launch-bash-command.js';
import { OutputCoalescer } from './output-coalescer.js';
import { OutputGate } from './output-gate.js';
import type { StoredEventWire } from './persisted-bash-event.js';
import { restoreBashHistory } from './restore-bash-history.js';
import { watchCommandMemory } from './watch-command-memory.js';

/** Grace between SIGTERM and SIGKILL for commands still running at `close()`. */
export const CLOSE_GRACE_MS = 1000;

/** Log bytes beyond twice the live events (plus this) trigger a compaction. */
const COMPACTION_SLACK_BYTES = 1024 * 1024;

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
  readonly #holds: CommandHolds;
  #starting = 0;
  readonly #outputGate = new OutputGate(() =>
    [...this.#running.values()].map((running) => running.handle),
  );
  #log: BashEventLog | undefined;
  #purgeTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: BashEventServiceOptions) {
    this.options = options;
    this.#store = new BashEventStore({
      maxBytes: options.maxBytes,
      maxCommandBytes: options.maxCommandBytes,
    });
    this.#holds = new CommandHolds(options.orphanGraceMs, (commandId) =>
      this.#endOrphan(commandId),
    );
    this.#onError =
      options.onError ??
      ((error) => process.emitWarning(`bash event service: ${messageOf(error)}`));
  }

  /** Loads persisted history (if any) and starts the retention loop. */
  async start(): Promise<void> {
    const { stateDir, retentionSeconds } = this.options;
    if (stateDir !== undefined) {
      await restoreBashHistory(stateDir, this.#store, this.#onError);
      this.#purge();
      const log = new BashEventLog(stateDir, this.#onError);
      await log.open(this.#store.lines(), this.#store.bytes);
      this.#log = log;
    }
    const intervalMs = Math.min(60_000, Math.max(100, (retentionSeconds * 1000) / 4));
    this.#purgeTimer = setInterval(() => this.#purge(), intervalMs).unref();
  }

  /**
   * Starts a command and records its `BashCommand` event; nothing is recorded when it cannot
   * start.
   * @throws WorkspaceError: a path error naming `cwd` (`NOT_FOUND`, `INVALID_ARGUMENT`,
   * `FORBIDDEN`); `INVALID_ARGUMENT` naming the field (`details.field`); `RESOURCE_EXHAUSTED` at
   * `maxConcurrentCommands`; `SPAWN_ERROR` (`details.errno`) when the shell cannot be started;
   * `WORKSPACE_CLOSED` after `close()`.
   */
  async startCommand(request: BashCommandRequest): Promise<StartedBashCommand> {
    this.#assertOpen();
    const { maxConcurrentCommands } = this.options;
    if (this.#running.size + this.#starting >= maxConcurrentCommands) {
      throw new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message: `too many commands are running (limit ${maxConcurrentCommands}); retry later`,
        details: { limit: maxConcurrentCommands },
      });
    }
    // Known before the launch: the egress proxy names the command in its refusals.
    const commandId = newHexId();
    const masking = new CommandOutputMasking(request.outputMasker);
    const coalescer = new OutputCoalescer((stream, chunk) => {
      const text = masking.push(stream, chunk);
      if (text === '') return;
      this.#add(
        this.#store.addOutput(
          commandId,
          stream === 'stdout' ? { stdout: text, stderr: null } : { stdout: null, stderr: text },
        ),
      );
    });
    this.#starting++;
    let launched: Awaited<ReturnType<typeof launchBashCommand>>;
    try {
      launched = await launchBashCommand({
        paths: this.options.paths,
        sandbox: this.options.sandbox,
        command: request.command,
        cwd: request.cwd,
        timeoutMs: request.timeoutSeconds * 1000,
        // The server's environment without its keys, the egress proxy naming the command, the
        // request's variables, then the server's own marks (the instance id).
        env: childEnvironment({
          extra: {
            ...this.options.sandbox?.proxyEnvironment(`command-${commandId}`),
            ...request.env,
            ...this.options.environment,
          },
        }),
        extendEnv: false,
        stdin: request.stdin ? 'pipe' : 'ignore',
        maxOutputBytes: request.captureOutput ? DEFAULT_MAX_OUTPUT_BYTES : 0,
        onStdout: (chunk) => coalescer.write('stdout', chunk),
        onStderr: (chunk) => coalescer.write('stderr', chunk),
      });
    } finally {
      this.#starting--;
    }
    const { handle } = launched;
    const { stored } = this.#add(
      this.#store.addCommand(
        {
          command: request.command,
          cwd: request.cwd == null ? null : launched.cwd,
          timeout: request.timeoutSeconds,
        },
        commandId,
      ),
    );
    const event = stored.event as BashCommandWire;
    const memory = watchCommandMemory(
      this.options.watchProcessTree,
      commandId,
      handle.pid,
      (note) => coalescer.write('stderr', note),
    );
    const finish = (outcome: CommandResult): BashCommandCompletion => {
      memory.stop();
      const result = memory.note ? { ...outcome, stderr: outcome.stderr + memory.note } : outcome;
      coalescer.flush();
      const held = masking.flush();
      if (held) this.#add(this.#store.addOutput(commandId, held));
      const { exitCode, timeoutOccurred, durationMs, terminationReason } = result;
      const final = this.#add(
        this.#store.addOutput(
          commandId,
          { stdout: null, stderr: null },
          { exitCode, timeoutOccurred, durationMs, terminationReason },
        ),
      ).stored.event as BashOutputWire;
      this.#running.delete(commandId);
      this.#holds.finished(commandId);
      return { final, result };
    };
    const completion = handle.result.then(finish, (error: unknown) => {
      coalescer.flush();
      const stderr = `Error executing command: ${messageOf(error)}`;
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
    this.#outputGate.admit(handle);
    const release = this.#holds.started(commandId, request.detached) ?? (() => {});
    return { event, pid: handle.pid, completion, release };
  }

  /**
   * Adds a follower (an exec connection attached to the command); returns its release. A
   * command that is not detached is ended `orphanGraceMs` after its last follower's release.
   */
  follow(commandId: string): () => void {
    return this.#holds.hold(commandId);
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

  #assertOpen(): void {
    if (this.#closing) {
      throw new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: 'Bash event service is not available',
      });
    }
  }

  /** Ends a command nobody follows any more: SIGTERM, then SIGKILL after the close grace. */
  #endOrphan(commandId: string): void {
    const running = this.#running.get(commandId);
    if (!running) return;
    const seconds = this.options.orphanGraceMs / 1000;
    this.#add(
      this.#store.addOutput(commandId, {
        stdout: null,
        stderr: `agent-server: ending the command: its client went away ${seconds} s ago and nobody attached\n`,
      }),
    );
    running.handle.signal('SIGTERM');
    const kill = setTimeout(() => running.handle.signal('SIGKILL'), CLOSE_GRACE_MS);
    void running.completion.then(() => clearTimeout(kill));
  }

  /** Persists and publishes a new event. */
  #add(appended: AppendedBashEvent): AppendedBashEvent {
    const log = this.#log;
    if (log) {
      log.append(appended.line);
      if (appended.markerLine !== undefined) log.append(appended.markerLine);
      this.#outputGate.check(log);
      this.#compact(log);
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
    if (this.#store.purgeBefore(cutoff) > 0 && this.#log) this.#compact(this.#log);
  }

  /** Rewrites the log when it is mostly dead (past twice the live events, plus slack). */
  #compact(log: BashEventLog): void {
    if (log.fileBytes <= 2 * this.#store.bytes + COMPACTION_SLACK_BYTES) return;
    log.rewrite(this.#store.lines(), this.#store.bytes);
  }
}
