import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  DirectoryHandle,
  TEMPORARY_FILE_PATTERN,
  writeStreamAtomic,
} from '@agent-workspace/core/internal';
import type { ConversationEventWire } from '@agent-workspace/protocol';
import type { ResolvedHistoryLimits } from './conversation-history-limits.js';
import { lineStartAtOrAfter, linesBackward, linesForward, validEnd } from './event-file-lines.js';
import { fitEvent } from './fit-event.js';
import { looseEvent, parseJson, strictEvent } from './parse-event-line.js';
import {
  hasPersistedState,
  type PersistedConversationState,
  readPersistedState,
  writePersistedState,
} from './persisted-conversation-state.js';

/** File of a persisted conversation's events: one JSON event per line, appended. */
export const EVENTS_FILE = 'events.jsonl';

/** Share of `maxDiskBytes` a compaction keeps: the newest events that fill it. */
const COMPACTION_SHARE = 0.75;

/** An event of a conversation's history and where its line is. */
export interface StoredEvent {
  readonly event: ConversationEventWire;
  /**
   * Where its line starts, in bytes appended since the history was opened; compactions do not
   * move it, so it orders events and finds one again.
   */
  readonly position: number;
  /** Bytes of its line, newline included. */
  readonly bytes: number;
}

/** What {@link ConversationStore.open} read back. */
export interface OpenedConversation {
  store: ConversationStore;
  state: PersistedConversationState;
  /** The newest events whose lines fit in `maxMemoryBytes` (at least one), oldest first. */
  tail: StoredEvent[];
}

/** Which stored lines {@link ConversationStore.read} reads, by position. */
export interface StoredRange {
  /** First position read (inclusive). */
  from: number;
  /** Lines must end at or before it. */
  before: number;
  /** Newest first. */
  backward: boolean;
}

/**
 * A conversation on disk: `state.json` (replaced atomically: written aside, synced, renamed; a
 * write superseded while queued is skipped) and `events.jsonl` (append-only, one event per
 * line). A crash can tear only the last line; opening skips it and cuts it off, so the next
 * append starts on a clean line. Once the file passes `maxDiskBytes` it is compacted (streamed)
 * to its newest lines. Writes and compactions are queued in order; the first failure is kept and
 * thrown by {@link ConversationStore.flush}. One process at a time per directory.
 */
export class ConversationStore {
  readonly #directory: string;
  readonly #eventsPath: string;
  readonly #limits: ResolvedHistoryLimits;
  #appender: FileHandle;
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;
  #closed = false;
  /** Position of the file's first byte, as of the last queued operation that ran. */
  #base = 0;
  /** Position the next appended line gets. */
  #end: number;
  /** Number of the last state queued; a queued state write whose number is older is skipped. */
  #stateVersion = 0;
  #stateWrites = 0;
  #lineWrites = 0;
  /** The lines of the queued append that has not started yet, and the position after them. */
  #batch: { text: string; end: number } | undefined;

  private constructor(
    directory: string,
    appender: FileHandle,
    limits: ResolvedHistoryLimits,
    end: number,
  ) {
    this.#directory = directory;
    this.#eventsPath = path.join(directory, EVENTS_FILE);
    this.#appender = appender;
    this.#limits = limits;
    this.#end = end;
  }

  /** Starts a conversation in `directory` (created if missing); refuses one that holds one. */
  static async create(
    directory: string,
    state: PersistedConversationState,
    limits: ResolvedHistoryLimits,
  ): Promise<ConversationStore> {
    await mkdir(directory, { recursive: true });
    if (await hasPersistedState(directory)) {
      throw invalidArgument(
        'persistenceDir',
        `(${directory}) already holds a conversation; reopen it with LocalConversation.open()`,
      );
    }
    // Without a state file there is no conversation: events left by a failed create go.
    const events = await open(path.join(directory, EVENTS_FILE), 'w');
    try {
      await writePersistedState(directory, state);
    } catch (error) {
      await events.close();
      throw error;
    }
    return new ConversationStore(directory, events, limits, 0);
  }

  /**
   * Reads the conversation in `directory` back: its state and the newest events that fit in
   * memory, read from the end of the file (the rest is not read). A file past `maxDiskBytes` is
   * compacted first, and files a dead process left written aside are removed. `NOT_FOUND` when
   * there is no conversation; `INVALID_CONFIG` when the state or a line read (but the last) is
   * not what it should be.
   */
  static async open(directory: string, limits: ResolvedHistoryLimits): Promise<OpenedConversation> {
    const state = await readPersistedState(directory);
    // Files written aside when a process died (one per directory): a compaction's may be large.
    for (const name of await readdir(directory)) {
      if (TEMPORARY_FILE_PATTERN.test(name)) await rm(path.join(directory, name), { force: true });
    }
    const eventsPath = path.join(directory, EVENTS_FILE);
    const appender = await open(eventsPath, 'a');
    let store: ConversationStore;
    try {
      const size = (await appender.stat()).size;
      const end = await validEnd(eventsPath, size, limits.maxMemoryBytes);
      if (end < size) await appender.truncate(end);
      store = new ConversationStore(directory, appender, limits, end);
    } catch (error) {
      await appender.close();
      throw error;
    }
    try {
      if (store.#end > limits.maxDiskBytes) await store.#compact();
      return { store, state, tail: await store.#readTail() };
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
  }

  /** Position the next appended line gets. */
  get end(): number {
    return this.#end;
  }

  /**
   * Queues a line (without its newline; `bytes` counts it) and returns its position. Lines queued
   * one after another while earlier writes run go to the file in one write.
   */
  append(line: string, bytes: number): number {
    const position = this.#end;
    this.#end += bytes;
    if (this.#batch !== undefined) {
      this.#batch.text += `${line}\n`;
      this.#batch.end = this.#end;
      return position;
    }
    const batch = { text: `${line}\n`, end: this.#end };
    this.#enqueue(async () => {
      if (this.#batch === batch) this.#batch = undefined;
      await this.#appender.write(batch.text);
      this.#lineWrites += 1;
      // Judged once the lines are written, in the queue's order: lines that take the file past
      // the bound are followed by a compaction before anything else (a flush included).
      if (batch.end - this.#base > this.#limits.maxDiskBytes) await this.#compact();
    });
    this.#batch = batch;
    return position;
  }

  /**
   * Queues an atomic rewrite of the state file. A write still queued when a newer state is
   * queued is skipped (the newer one replaces the file anyway): a step's several state changes
   * cost one synced write when they come faster than the disk, and after {@link flush} the
   * file holds the newest state, as before. `state` is kept as it is until written: pass a
   * fresh value the caller no longer changes (copying it here cost more than the write).
   */
  saveState(state: PersistedConversationState): void {
    const version = ++this.#stateVersion;
    this.#enqueue(async () => {
      if (version !== this.#stateVersion) return;
      await writePersistedState(this.#directory, state);
      this.#stateWrites += 1;
    });
  }

  /** Writes of appended lines so far (for tests and diagnostics: a batch is one write). */
  get lineWrites(): number {
    return this.#lineWrites;
  }

  /** State files written so far (for tests and diagnostics: superseded writes are skipped). */
  get stateWrites(): number {
    return this.#stateWrites;
  }

  /**
   * The stored events in `range` whose lines are still on disk, as of the lines appended when
   * the first one is asked for. A line that is not an event is skipped; one over `maxEventBytes`
   * (written under a larger bound) is cut to it. Memory holds one line at a time.
   */
  async *read(range: StoredRange): AsyncGenerator<StoredEvent> {
    const { handle, base } = await this.#openReader();
    if (handle === undefined) return;
    try {
      const start = Math.max(0, range.from - base);
      const end = range.before - base;
      if (end <= start) return;
      const lines = range.backward ? linesBackward : linesForward;
      for await (const line of lines(handle, start, end, this.#limits.maxMemoryBytes)) {
        const event = looseEvent(parseJson(line.text));
        if (event === undefined) continue;
        const fitted =
          line.bytes > this.#limits.maxEventBytes
            ? fitEvent(event, this.#limits.maxEventBytes).event
            : event;
        yield { event: fitted, position: base + line.start, bytes: line.bytes };
      }
    } finally {
      await handle.close();
    }
  }

  /** Waits for the queued writes and syncs the events file; throws the first write failure. */
  async flush(): Promise<void> {
    this.#enqueue(() => this.#appender.datasync());
    await this.#tail;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Flushes, then closes the events file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      await this.#appender.close();
    }
  }

  #enqueue(task: () => Promise<void>): void {
    // What is queued after this task waits for it: later lines start a batch of their own.
    this.#batch = undefined;
    this.#tail = this.#tail.then(async () => {
      if (this.#failure !== undefined || this.#closed) return;
      try {
        await task();
      } catch (error) {
        this.#failure = error;
      }
    });
  }

  /** A read-only handle of the events file once the writes queued before are done. */
  #openReader(): Promise<{ handle: FileHandle | undefined; base: number }> {
    return new Promise((resolve, reject) => {
      // Also after a failure or close: reading needs neither. Later lines are not read.
      this.#batch = undefined;
      this.#tail = this.#tail.then(async () => {
        try {
          resolve({ handle: await open(this.#eventsPath, 'r'), base: this.#base });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            resolve({ handle: undefined, base: this.#base });
          } else reject(error);
        }
      });
    });
  }

  /** Rewrites the file as its newest lines filling `COMPACTION_SHARE` of `maxDiskBytes`. */
  async #compact(): Promise<void> {
    const { size } = await this.#appender.stat();
    const keep = Math.floor(this.#limits.maxDiskBytes * COMPACTION_SHARE);
    if (size <= keep) return;
    const cut = await lineStartAtOrAfter(this.#eventsPath, size - keep, size);
    await writeStreamAtomic({
      source:
        cut < size
          ? createReadStream(this.#eventsPath, { start: cut, end: size - 1 })
          : Readable.from([]),
      directory: DirectoryHandle.byPath(this.#directory),
      name: EVENTS_FILE,
      mode: 0o600,
      durable: true,
    });
    await this.#appender.close();
    this.#appender = await open(this.#eventsPath, 'a');
    this.#base += cut;
  }

  /** The newest events that fit in `maxMemoryBytes`; strict: a line that is not an event throws. */
  async #readTail(): Promise<StoredEvent[]> {
    const { maxMemoryBytes, maxEventBytes } = this.#limits;
    const { handle, base } = await this.#openReader();
    if (handle === undefined) return [];
    const tail: StoredEvent[] = [];
    let bytes = 0;
    try {
      for await (const line of linesBackward(handle, 0, this.#end - base, maxMemoryBytes)) {
        if (tail.length > 0 && bytes + line.bytes > maxMemoryBytes) break;
        // Blank, or longer than memory may hold (written under other bounds): left on disk.
        if (line.text === undefined || line.text.trim() === '') continue;
        const event = strictEvent(line.text);
        if (event === undefined) {
          throw new WorkspaceError({
            code: 'INVALID_CONFIG',
            message: `${this.#eventsPath}: the line at byte ${line.start} is not a conversation event`,
            details: { path: this.#eventsPath, byte: line.start },
          });
        }
        const fitted = line.bytes > maxEventBytes ? fitEvent(event, maxEventBytes).event : event;
        tail.push({ event: fitted, position: base + line.start, bytes: line.bytes });
        bytes += line.bytes;
      }
    } finally {
      await handle.close();
    }
    return tail.reverse();
  }
}
