import type { CommandRecord, StoredBashEvent } from './bash-event-records.js';
import type { PersistedBashEvent, StoredEventWire } from './persisted-bash-event.js';

/** Whether a logged event fits `records` (outputs must continue their command's orders). */
export function canRecordBashEvent(
  records: ReadonlyMap<string, CommandRecord>,
  event: StoredEventWire,
): boolean {
  const record = records.get(event.kind === 'BashCommand' ? event.id : event.command_id);
  if (event.kind === 'BashCommand') return record === undefined;
  if (!record) return true;
  return !record.exit && (record.outputs.length === 0 || event.order === record.nextOrder);
}

/**
 * Adds a newly stored event to its command's record in `records`, creating the record when
 * needed, and returns that record. Does not count the event's bytes.
 */
export function recordBashEvent(
  records: Map<string, CommandRecord>,
  stored: StoredBashEvent,
  persisted: PersistedBashEvent,
): CommandRecord {
  const { event } = persisted;
  if (event.kind === 'BashCommand') {
    const record = newRecord(event.id, stored, 0);
    records.set(event.id, record);
    return record;
  }
  let record = records.get(event.command_id);
  if (!record) {
    // Restored output whose command event was purged.
    record = newRecord(event.command_id, undefined, event.order);
    records.set(event.command_id, record);
  }
  if (record.outputs.length === 0) record.firstOrder = event.order;
  if (persisted.marker) record.droppedOutputBytes = persisted.marker.dropped_bytes;
  record.outputs.push(stored);
  record.nextOrder = event.order + 1;
  if (event.exit_code !== null) {
    record.exit = {
      exitCode: event.exit_code,
      timeoutOccurred: persisted.exit?.timeout_occurred ?? false,
      durationMs: persisted.exit?.duration_ms ?? 0,
      ...(persisted.exit?.termination_reason && {
        terminationReason: persisted.exit.termination_reason,
      }),
    };
  }
  return record;
}

function newRecord(
  id: string,
  command: StoredBashEvent | undefined,
  firstOrder: number,
): CommandRecord {
  return {
    id,
    command,
    outputs: [],
    firstOrder,
    nextOrder: firstOrder,
    exit: undefined,
    bytes: 0,
    droppedOutputBytes: 0,
  };
}
