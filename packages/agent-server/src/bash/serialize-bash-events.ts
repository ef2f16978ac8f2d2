import type { CommandExit, CommandRecord, StoredBashEvent } from './bash-event-records.js';
import type { PersistedBashEvent, StoredEventWire } from './persisted-bash-event.js';

/**
 * The log line of `event`; pass `exit` for a command's final output, `droppedBytes` for the
 * marker of dropped outputs.
 */
export function toPersistedBashEvent(
  event: StoredEventWire,
  exit: CommandExit | undefined,
  droppedBytes?: number,
): PersistedBashEvent {
  return {
    event,
    ...(exit && {
      exit: {
        timeout_occurred: exit.timeoutOccurred,
        duration_ms: exit.durationMs,
        ...(exit.terminationReason && { termination_reason: exit.terminationReason }),
      },
    }),
    ...(droppedBytes !== undefined && { marker: { dropped_bytes: droppedBytes } }),
  };
}

/** JSONL line (without newline) of a persisted event. */
export function serializeBashEvent(persisted: PersistedBashEvent): string {
  return JSON.stringify(persisted);
}

/**
 * Log lines of `events`, oldest first; final outputs carry their command's exit details and
 * markers the dropped byte count from `records`. Lines are produced lazily from a snapshot of both taken now.
 */
export function serializeBashEvents(
  events: readonly StoredBashEvent[],
  records: Iterable<CommandRecord>,
): Iterable<string> {
  const byId = new Map<string, CommandRecord>();
  for (const record of records) byId.set(record.id, { ...record });
  return linesOf(events.slice(), byId);
}

function* linesOf(
  events: readonly StoredBashEvent[],
  records: ReadonlyMap<string, CommandRecord>,
): Generator<string> {
  for (const { event, marker } of events) {
    const record = event.kind === 'BashOutput' ? records.get(event.command_id) : undefined;
    const exit = event.kind === 'BashOutput' && event.exit_code !== null ? record?.exit : undefined;
    const dropped = marker ? (record?.droppedOutputBytes ?? 0) : undefined;
    yield serializeBashEvent(toPersistedBashEvent(event, exit, dropped));
  }
}
