import type { TerminationReason } from '@agent-workspace/protocol';
import type { StoredEventWire } from './persisted-bash-event.js';

/** How a finished command ended, beyond its exit code. */
export interface CommandExit {
  exitCode: number;
  timeoutOccurred: boolean;
  durationMs: number;
  /** Why it was ended, when it did not exit on its own. */
  terminationReason?: TerminationReason | undefined;
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
  /** True for the output that stands for a command's dropped oldest outputs. */
  readonly marker?: boolean;
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
  /** Output bytes (stdout and stderr text, UTF-8) dropped by the per-command bound. */
  droppedOutputBytes: number;
}

/** A stored event plus its log line. */
export interface AppendedBashEvent {
  stored: StoredBashEvent;
  /** JSONL line (without newline) to persist. */
  line: string;
  /** Line of the marker that replaced this command's oldest outputs, when some were dropped. */
  markerLine?: string | undefined;
}

/** `seq` of the newest kept event of `record` (0 when none is kept). */
export function lastSeqOf(record: CommandRecord): number {
  return record.outputs[record.outputs.length - 1]?.seq ?? record.command?.seq ?? 0;
}
