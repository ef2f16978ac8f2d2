import { normalizeWireTimestamp } from '@agent-workspace/protocol';
import { timestampToMicros } from './event-clock.js';
import type { PersistedBashEvent } from './persisted-bash-event.js';

/** A logged event with its normalized timestamp, in microseconds since the epoch. */
export interface TimedPersistedBashEvent {
  line: PersistedBashEvent;
  micros: number;
}

/** Logged events with normalized timestamps, oldest first. */
export function sortPersistedBashEvents(
  lines: readonly PersistedBashEvent[],
): TimedPersistedBashEvent[] {
  return lines
    .map((line) => {
      const timestamp = normalizeWireTimestamp(line.event.timestamp);
      return {
        line: { ...line, event: { ...line.event, timestamp } },
        micros: timestampToMicros(timestamp),
      };
    })
    .sort((a, b) => a.micros - b.micros);
}
