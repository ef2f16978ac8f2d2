import {
  type BashCommandWire,
  type BashEventSearchQuery,
  type BashOutputWire,
  newHexId,
} from '@agent-workspace/protocol';
import {
  type AppendedBashEvent,
  type CommandExit,
  type CommandRecord,
  lastSeqOf,
  type StoredBashEvent,
} from './bash-event-records.js';
import { trimCommandHistory } from './command-history-marker.js';
import { countOldestToFree } from './count-oldest-to-free.js';
import { DroppedCommandIds } from './dropped-command-ids.js';
import { EventClock } from './event-clock.js';
import { lowerBound } from './lower-bound.js';
import type { PersistedBashEvent } from './persisted-bash-event.js';
import { canRecordBashEvent, recordBashEvent } from './record-bash-event.js';
import { type BashEventStorePage, searchBashEvents } from './search-bash-events.js';
import {
  serializeBashEvent,
  serializeBashEvents,
  toPersistedBashEvent,
} from './serialize-bash-events.js';
import { sortPersistedBashEvents } from './sort-persisted-bash-events.js';

/** Options of {@link BashEventStore}. */
export interface BashEventStoreOptions {
  /** Bound on the summed size of kept events; see {@link BashEventStore}. */
  maxBytes: number;
  /** Bound on the size of one command's kept events; see {@link BashEventStore}. */
  maxCommandBytes: number;
}

/** Eviction for `maxBytes` frees down to this share of it, so it runs rarely. */
const EVICTION_TARGET = 0.9;

/**
 * In-memory bash event history, indexed by event id and by command id, in time order (event
 * timestamps are distinct and increase with `seq`).
 *
 * Bounds: {@link BashEventStore.purgeBefore} drops events by age; when one command's events
 * exceed `maxCommandBytes`, its oldest outputs are replaced by one marker output (at the order of
 * the last one dropped, saying how many bytes are gone), so a command printing without end keeps
 * its newest output; when the summed line size exceeds `maxBytes`, whole finished commands go
 * first (oldest started first), then, if only running commands remain, their oldest events.
 */
export class BashEventStore {
  readonly #maxBytes: number;
  readonly #maxCommandBytes: number;
  readonly #clock = new EventClock();
  #events: StoredBashEvent[] = [];
  readonly #byId = new Map<string, StoredBashEvent>();
  readonly #records = new Map<string, CommandRecord>();
  readonly #dropped = new DroppedCommandIds();
  #seq = 0;
  #bytes = 0;
  #evictedThrough = 0;

  constructor(options: BashEventStoreOptions) {
    this.#maxBytes = options.maxBytes;
    this.#maxCommandBytes = options.maxCommandBytes;
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
  addCommand(
    fields: Pick<BashCommandWire, 'command' | 'cwd' | 'timeout'>,
    id: string = newHexId(),
  ): AppendedBashEvent {
    const { micros, timestamp } = this.#clock.next();
    const event: BashCommandWire = { kind: 'BashCommand', id, timestamp, ...fields };
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
    const appended = this.#append(toPersistedBashEvent(event, exit), micros);
    const trimmed = this.#trimCommand(record);
    return trimmed === undefined ? appended : { ...appended, markerLine: trimmed };
  }

  /**
   * Re-adds events read back from the log, oldest first. Duplicates and outputs that would
   * leave a gap in a command's orders are skipped. Returns how many were skipped.
   */
  restore(lines: readonly PersistedBashEvent[]): number {
    let skipped = 0;
    for (const { line, micros } of sortPersistedBashEvents(lines)) {
      if (this.#byId.has(line.event.id) || !canRecordBashEvent(this.#records, line.event)) {
        // A marker logged after the outputs it replaced: trimming makes it again.
        if (!line.marker) skipped++;
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
    return this.#dropped.has(commandId);
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
    return searchBashEvents(this.#events, this.#records, query);
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
    return serializeBashEvents(this.#events, this.#records.values());
  }

  #append(persisted: PersistedBashEvent, micros: number): AppendedBashEvent {
    const line = serializeBashEvent(persisted);
    const { event } = persisted;
    const stored: StoredBashEvent = {
      seq: ++this.#seq,
      micros,
      event,
      bytes: Buffer.byteLength(line) + 1,
      ...(persisted.marker && { marker: true }),
    };
    this.#events.push(stored);
    this.#byId.set(event.id, stored);
    const record = recordBashEvent(this.#records, stored, persisted);
    record.bytes += stored.bytes;
    this.#bytes += stored.bytes;
    if (this.#bytes > this.#maxBytes) this.#evict();
    return { stored, line };
  }

  /**
   * Replaces the oldest outputs of `record` by a marker when it is over `maxCommandBytes`;
   * returns the marker's log line.
   */
  #trimCommand(record: CommandRecord): string | undefined {
    if (record.bytes <= this.#maxCommandBytes) return undefined;
    const target = this.#maxCommandBytes * EVICTION_TARGET;
    const trim = trimCommandHistory(record, target, this.#maxCommandBytes);
    if (!trim) return undefined;
    const { count, freedBytes, marker } = trim;
    for (const stored of record.outputs.slice(0, count)) this.#byId.delete(stored.event.id);
    const position = lowerBound(this.#events, (event) => event.seq >= marker.seq);
    this.#events[position] = marker;
    this.#byId.set(marker.event.id, marker);
    record.outputs.splice(0, count, marker);
    record.firstOrder = (marker.event as BashOutputWire).order;
    record.droppedOutputBytes = trim.droppedOutputBytes;
    record.bytes += marker.bytes - freedBytes;
    this.#bytes += marker.bytes - freedBytes;
    this.#evictedThrough = Math.max(this.#evictedThrough, marker.seq);
    this.#compact();
    return trim.line;
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
    const count = countOldestToFree(this.#events, this.#bytes, target);
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
    this.#dropped.add(record.id);
  }

  /** Removes events that are no longer indexed from the time-ordered list. */
  #compact(): void {
    if (this.#events.length !== this.#byId.size) {
      this.#events = this.#events.filter((stored) => this.#byId.get(stored.event.id) === stored);
    }
  }
}
