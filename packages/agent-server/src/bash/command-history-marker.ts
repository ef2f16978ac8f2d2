import type { BashOutputWire } from '@agent-workspace/protocol';
import { newHexId } from '@agent-workspace/protocol';
import type { CommandRecord, StoredBashEvent } from './bash-event-records.js';
import { serializeBashEvent, toPersistedBashEvent } from './serialize-bash-events.js';

/** What trimming a command's oldest outputs gives: the marker that replaces them. */
export interface CommandHistoryTrim {
  /** How many of the record's oldest outputs go (the marker takes the last one's place). */
  count: number;
  /** Their summed `bytes`. */
  freedBytes: number;
  /** The marker output, with the order, time and `seq` of the last dropped output. */
  marker: StoredBashEvent;
  /** Its log line. */
  line: string;
  /** Output bytes the command lost in all, this trim included. */
  droppedOutputBytes: number;
}

/** The text of the output that stands for `droppedBytes` bytes of dropped output. */
export function droppedOutputMarker(droppedBytes: number, maxCommandBytes: number): string {
  return `[... ${droppedBytes} bytes of earlier output dropped: this command's history is capped at ${maxCommandBytes} bytes ...]\n`;
}

/**
 * Plans how to bring `record` down to `targetBytes` by dropping its oldest outputs (never its
 * newest one): they are replaced by one marker output, at the order of the last one dropped, that
 * says how many output bytes are gone in all. `undefined` when nothing can be freed.
 */
export function trimCommandHistory(
  record: CommandRecord,
  targetBytes: number,
  maxCommandBytes: number,
): CommandHistoryTrim | undefined {
  const { outputs } = record;
  let count = 0;
  let freedBytes = 0;
  let droppedOutputBytes = record.droppedOutputBytes;
  while (count < outputs.length - 1 && record.bytes - freedBytes > targetBytes) {
    const stored = outputs[count] as StoredBashEvent;
    freedBytes += stored.bytes;
    if (!stored.marker) droppedOutputBytes += outputBytes(stored.event as BashOutputWire);
    count++;
  }
  // Replacing a lone marker by a new one frees nothing.
  if (count === 0 || (count === 1 && outputs[0]?.marker)) return undefined;
  const last = outputs[count - 1] as StoredBashEvent;
  const dropped = last.event as BashOutputWire;
  const event: BashOutputWire = {
    kind: 'BashOutput',
    id: newHexId(),
    timestamp: dropped.timestamp,
    command_id: dropped.command_id,
    order: dropped.order,
    exit_code: null,
    stdout: droppedOutputMarker(droppedOutputBytes, maxCommandBytes),
    stderr: null,
  };
  const line = serializeBashEvent(toPersistedBashEvent(event, undefined, droppedOutputBytes));
  const marker: StoredBashEvent = {
    seq: last.seq,
    micros: last.micros,
    event,
    bytes: Buffer.byteLength(line) + 1,
    marker: true,
  };
  return { count, freedBytes, marker, line, droppedOutputBytes };
}

/** UTF-8 bytes of an output's text, the count a marker reports. */
export function outputBytes(event: BashOutputWire): number {
  return Buffer.byteLength(event.stdout ?? '') + Buffer.byteLength(event.stderr ?? '');
}
