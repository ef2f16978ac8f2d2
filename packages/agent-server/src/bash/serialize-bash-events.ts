import type { CommandExit, CommandRecord, StoredBashEvent } from './bash-event-records.js';
import type { PersistedBashEvent, StoredEventWire } from './persisted-bash-event.js';

/** The log line of `event`; pass `exit` for a command's final output. */
export function toPersistedBashEvent(
  event: StoredEventWire,
  exit: CommandExit | undefined,
): PersistedBashEvent {
  return exit
    ? { event, exit: { timeout_occurred: exit.timeoutOccurred, duration_ms: exit.durationMs } }
    : { event };
}

/** JSONL line (without newline) of a persisted event. */
export function serializeBashEvent(persisted: PersistedBashEvent): string {
  return JSON.stringify(persisted);
}

/**
 * Log lines of `events`, oldest first; final outputs carry their command's exit details from
 * `records`. Lines are produced lazily from a snapshot of both taken now.
 */
export function serializeBashEvents(
  events: readonly StoredBashEvent[],
  records: Iterable<CommandRecord>,
): Iterable<string> {
  const exits = new Map<string, CommandExit>();
  for (const record of records) {
    if (record.exit) exits.set(record.id, record.exit);
  }
  return linesOf(events.slice(), exits);
}

function* linesOf(
  events: readonly StoredBashEvent[],
  exits: ReadonlyMap<string, CommandExit>,
): Generator<string> {
  for (const { event } of events) {
    const exit =
      event.kind === 'BashOutput' && event.exit_code !== null
        ? exits.get(event.command_id)
        : undefined;
    yield serializeBashEvent(toPersistedBashEvent(event, exit));
  }
}
