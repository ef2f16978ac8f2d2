import {
  type BashCommandWire,
  type BashEventSearchQuery,
  type BashOutputWire,
  newHexId,
  normalizeWireTimestamp,
} from '@agent-workspace/protocol';
import { EventClock, timestampToMicros } from './event-clock.js';
import type { PersistedBashEvent, StoredEventWire } from './persisted-bash-event.js';

/** How a finished command ended, beyond its exit code. */
export interface CommandExit {
  exitCode: number;
  timeoutOccurred: boolean;
  durationMs: number;
}

/** An event in the store. */
export interface StoredBashEvent {
  /** Position in the store, increasing with time; not persisted. */
  readonly seq: number;
  /** Timestamp in microseconds since the epoch. */
  readonly micros: number;
  readonly event: StoredEventWire;
  /** Size of its log line, which is what `maxBytes` bounds. */
  readonly bytes: number;
}

/** Everything kept about one command. */
export interface CommandRecord {
  readonly id: string;
  /** The `BashCommand` event, until retention drops it. */
  command: StoredBashEvent | undefined;
  /** Its `BashOutput` events, `order` ascending without gaps, starting at `firstOrder`. */
  outputs: StoredBashEvent[];
  /** `order` of `outputs[0]`; the order the next output gets when none is kept. */
  firstOrder: number;
  /** `order` the next output gets. */
  nextOrder: number;
  /** Set with the final output (the one with an exit code). */
  exit: CommandExit | undefined;
  /** Bytes of the kept events. */
  bytes: number;
}

/** A stored event plus its log line. */
export interface AppendedBashEvent {
  stored: StoredBashEvent;
  /** JSONL line (without newline) to persist. */
  line: string;
}

/** Result of {@link BashEventStore.search}. */
export interface BashEventStorePage {
  items: StoredBashEvent[];
  nextPageId: string | null;
}

/** Options of {@link BashEventStore}. */
export interface BashEventStoreOptions {
  /** Bound on the summed size of kept events; see {@link BashEventStore}. */
  maxBytes: number;
}

/** How many ids of dropped commands are remembered, to tell "expired" from "unknown". */
const MAX_TOMBSTONES = 10_000;

/** Eviction for `maxBytes` frees down to this share of it, so it runs rarely. */
const EVICTION_TARGET = 0.9;

/**
 * In-memory bash event history, indexed by event id and by command id, in time order (event
 * timestamps are distinct and increase with `seq`).
 *
 * Bounds: {@link BashEventStore.purgeBefore} drops events by age; when the summed line size
 * exceeds `maxBytes`, whole finished commands go first (oldest started first), then, if only
 * running commands remain, their oldest events.
 */
export class BashEventStore {
  readonly #maxBytes: number;
  readonly #clock = new EventClock();
  #events: StoredBashEvent[] = [];
  readonly #byId = new Map<string, StoredBashEvent>();
  readonly #records = new Map<string, CommandRecord>();
  readonly #tombstones = new Set<string>();
  #seq = 0;
  #bytes = 0;
  #evictedThrough = 0;

  constructor(options: BashEventStoreOptions) {
    this.#maxBytes = options.maxBytes;
  }

  /** `seq` of the newest event (0 when none was ever added). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Highest `seq` dropped by retention or `maxBytes`; subscribers behind it lost events. */
  get evictedThrough(): number {
    return this.#evictedThrough;
  }

  /** Summed size of kept events. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Records a new command's `BashCommand` event. */
  addCommand(fields: Pick<BashCommandWire, 'command' | 'cwd' | 'timeout'>): AppendedBashEvent {
    const { micros, timestamp } = this.#clock.next();
    const event: BashCommandWire = { kind: 'BashCommand', id: newHexId(), timestamp, ...fields };
    return this.#append({ event }, micros);
  }

  /**
   * Records an output of a known command; with `exit`, it is the final one.
   * @throws Error when the command is unknown or already finished.
   */
  addOutput(
    commandId: string,
    fields: Pick<BashOutputWire, 'stdout' | 'stderr'>,
    exit?: CommandExit,
  ): AppendedBashEvent {
    const record = this.#records.get(commandId);
    if (!record || record.exit) throw new Error(`command ${commandId} is not running`);
    const { micros, timestamp } = this.#clock.next();
    const event: BashOutputWire = {
      kind: 'BashOutput',
      id: newHexId(),
      timestamp,
      command_id: commandId,
      order: record.nextOrder,
      exit_code: exit ? exit.exitCode : null,
      ...fields,
    };
    const persisted: PersistedBashEvent = exit
      ? { event, exit: { timeout_occurred: exit.timeoutOccurred, duration_ms: exit.durationMs } }
      : { event };
    return this.#append(persisted, micros);
  }

  /**
   * Re-adds events read back from the log, oldest first. Duplicates and outputs that would
   * leave a gap in a command's orders are skipped. Returns how many were skipped.
   */
  restore(lines: readonly PersistedBashEvent[]): number {
    let skipped = 0;
    const sorted = lines
      .map((line) => {
        const timestamp = normalizeWireTimestamp(line.event.timestamp);
        return {
          line: { ...line, event: { ...line.event, timestamp } },
          micros: timestampToMicros(timestamp),
        };
      })
      .sort((a, b) => a.micros - b.micros);
    for (const { line, micros } of sorted) {
      if (this.#byId.has(line.event.id) || !this.#restorable(line.event)) {
        skipped++;
        continue;
      }
      this.#clock.advancePast(micros);
      this.#append(line, micros);
    }
    return skipped;
  }

  /** Commands that were running when the log was written: they never got a final event. */
  unfinishedCommands(): string[] {
    return [...this.#records.values()].filter((record) => !record.exit).map((record) => record.id);
  }

  /** The event with this 32-hex id. */
  get(id: string): StoredBashEvent | undefined {
    return this.#byId.get(id);
  }

  /** What is kept about a command. */
  record(commandId: string): CommandRecord | undefined {
    return this.#records.get(commandId);
  }

  /** True when the command existed but every event of it was dropped. */
  wasDropped(commandId: string): boolean {
    return this.#tombstones.has(commandId);
  }

  /** Up to `max` events with `seq` greater than `afterSeq`, oldest first. */
  eventsAfter(afterSeq: number, max: number): StoredBashEvent[] {
    const start = lowerBound(this.#events, (event) => event.seq > afterSeq);
    return this.#events.slice(start, start + max);
  }

  /**
   * One page of events matching `query`. Every filter, `orderGt` included, applies before
   * paging. `nextPageId` is the timestamp of the first event of the next page.
   */
  search(query: BashEventSearchQuery): BashEventStorePage {
    const { kindEq, commandIdEq, orderGt, limit } = query;
    let candidates = this.#events;
    if (commandIdEq !== undefined) {
      candidates = kindEq === 'BashCommand' ? [] : (this.#records.get(commandIdEq)?.outputs ?? []);
    }
    const gte =
      query.timestampGte === undefined ? -Infinity : timestampToMicros(query.timestampGte);
    const lt = query.timestampLt === undefined ? Infinity : timestampToMicros(query.timestampLt);
    const matches = ({ micros, event }: StoredBashEvent): boolean =>
      micros >= gte &&
      micros < lt &&
      (kindEq === undefined || event.kind === kindEq) &&
      (orderGt === undefined || event.kind !== 'BashOutput' || event.order > orderGt);
    const descending = query.sortOrder === 'TIMESTAMP_DESC';
    const cursor = query.pageId === undefined ? undefined : timestampToMicros(query.pageId);
    const step = descending ? -1 : 1;
    let index: number;
    if (descending) {
      index =
        cursor === undefined
          ? candidates.length - 1
          : lowerBound(candidates, (event) => event.micros > cursor) - 1;
    } else {
      index = cursor === undefined ? 0 : lowerBound(candidates, (event) => event.micros >= cursor);
    }
    const items: StoredBashEvent[] = [];
    for (; index >= 0 && index < candidates.length; index += step) {
      const event = candidates[index] as StoredBashEvent;
      if (!matches(event)) continue;
      if (items.length === limit) return { items, nextPageId: event.event.timestamp };
      items.push(event);
    }
    return { items, nextPageId: null };
  }

  /** Drops events older than `micros`. Returns how many were dropped. */
  purgeBefore(micros: number): number {
    const count = lowerBound(this.#events, (event) => event.micros >= micros);
    if (count > 0) this.#dropOldest(count);
    return count;
  }

  /** Drops every event of finished commands; running commands keep theirs. Returns the count. */
  clearFinished(): number {
    const before = this.#events.length;
    for (const record of this.#records.values()) {
      if (record.exit) this.#dropRecord(record);
    }
    this.#compact();
    return before - this.#events.length;
  }

  /**
   * Every kept event as a log line, oldest first (for compaction). Lines are produced lazily
   * from a snapshot taken now, so later changes to the store do not affect them.
   */
  lines(): Iterable<string> {
    const exits = new Map<string, CommandExit>();
    for (const record of this.#records.values()) {
      if (record.exit) exits.set(record.id, record.exit);
    }
    return serializeEvents(this.#events.slice(), exits);
  }

  /** Whether a logged event fits the records (outputs must continue their command's orders). */
  #restorable(event: StoredEventWire): boolean {
    const record = this.#records.get(event.kind === 'BashCommand' ? event.id : event.command_id);
    if (event.kind === 'BashCommand') return record === undefined;
    if (!record) return true;
    return !record.exit && (record.outputs.length === 0 || event.order === record.nextOrder);
  }

  #append(persisted: PersistedBashEvent, micros: number): AppendedBashEvent {
    const line = serialize(persisted);
    const { event } = persisted;
    const stored: StoredBashEvent = {
      seq: ++this.#seq,
      micros,
      event,
      bytes: Buffer.byteLength(line) + 1,
    };
    this.#events.push(stored);
    this.#byId.set(event.id, stored);
    let record: CommandRecord | undefined;
    if (event.kind === 'BashCommand') {
      record = {
        id: event.id,
        command: stored,
        outputs: [],
        firstOrder: 0,
        nextOrder: 0,
        exit: undefined,
        bytes: 0,
      };
      this.#records.set(event.id, record);
    } else {
      record = this.#records.get(event.command_id);
      if (!record) {
        // Restored output whose command event was purged.
        record = {
          id: event.command_id,
          command: undefined,
          outputs: [],
          firstOrder: event.order,
          nextOrder: event.order,
          exit: undefined,
          bytes: 0,
        };
        this.#records.set(event.command_id, record);
      }
      if (record.outputs.length === 0) record.firstOrder = event.order;
      record.outputs.push(stored);
      record.nextOrder = event.order + 1;
      if (event.exit_code !== null) {
        record.exit = {
          exitCode: event.exit_code,
          timeoutOccurred: persisted.exit?.timeout_occurred ?? false,
          durationMs: persisted.exit?.duration_ms ?? 0,
        };
      }
    }
    record.bytes += stored.bytes;
    this.#bytes += stored.bytes;
    if (this.#bytes > this.#maxBytes) this.#evict();
    return { stored, line };
  }

  /** Frees space down to the eviction target: finished commands first, then the oldest events. */
  #evict(): void {
    const target = this.#maxBytes * EVICTION_TARGET;
    for (const record of this.#records.values()) {
      if (this.#bytes <= target) break;
      if (!record.exit) continue;
      this.#evictedThrough = Math.max(this.#evictedThrough, lastSeqOf(record));
      this.#dropRecord(record);
    }
    this.#compact();
    let count = 0;
    let freed = 0;
    while (count < this.#events.length && this.#bytes - freed > target) {
      freed += (this.#events[count] as StoredBashEvent).bytes;
      count++;
    }
    if (count > 0) this.#dropOldest(count);
  }

  /** Drops the `count` oldest events. */
  #dropOldest(count: number): void {
    const dropped = this.#events.splice(0, count);
    this.#evictedThrough = Math.max(this.#evictedThrough, dropped[dropped.length - 1]?.seq ?? 0);
    const touched = new Map<CommandRecord, number>();
    for (const stored of dropped) {
      const { event } = stored;
      this.#byId.delete(event.id);
      this.#bytes -= stored.bytes;
      const record = this.#records.get(event.kind === 'BashCommand' ? event.id : event.command_id);
      if (!record) continue;
      record.bytes -= stored.bytes;
      if (event.kind === 'BashCommand') record.command = undefined;
      touched.set(record, (touched.get(record) ?? 0) + (event.kind === 'BashOutput' ? 1 : 0));
    }
    for (const [record, outputs] of touched) {
      record.outputs.splice(0, outputs);
      record.firstOrder += outputs;
      if (record.exit && !record.command && record.outputs.length === 0) this.#forget(record);
    }
  }

  /** Removes a command and its events from the indexes; {@link #compact} removes them from the list. */
  #dropRecord(record: CommandRecord): void {
    if (record.command) this.#byId.delete(record.command.event.id);
    for (const output of record.outputs) this.#byId.delete(output.event.id);
    this.#bytes -= record.bytes;
    this.#forget(record);
  }

  #forget(record: CommandRecord): void {
    this.#records.delete(record.id);
    this.#tombstones.add(record.id);
    if (this.#tombstones.size > MAX_TOMBSTONES) {
      this.#tombstones.delete(this.#tombstones.values().next().value as string);
    }
  }

  /** Removes events that are no longer indexed from the time-ordered list. */
  #compact(): void {
    if (this.#events.length !== this.#byId.size) {
      this.#events = this.#events.filter((stored) => this.#byId.get(stored.event.id) === stored);
    }
  }
}

function serialize(persisted: PersistedBashEvent): string {
  return JSON.stringify(persisted);
}

/** Log lines of `events`; final outputs carry their command's exit details. */
function* serializeEvents(
  events: readonly StoredBashEvent[],
  exits: ReadonlyMap<string, CommandExit>,
): Generator<string> {
  for (const { event } of events) {
    const exit =
      event.kind === 'BashOutput' && event.exit_code !== null
        ? exits.get(event.command_id)
        : undefined;
    yield serialize(
      exit
        ? { event, exit: { timeout_occurred: exit.timeoutOccurred, duration_ms: exit.durationMs } }
        : { event },
    );
  }
}

function lastSeqOf(record: CommandRecord): number {
  return record.outputs[record.outputs.length - 1]?.seq ?? record.command?.seq ?? 0;
}

/** First index whose element satisfies `predicate`, which must be false then true along `items`. */
function lowerBound<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (predicate(items[middle] as T)) high = middle;
    else low = middle + 1;
  }
  return low;
}
