import { formatWireTimestamp } from '@agent-workspace/protocol';

/** A point in time as bash events carry it. */
export interface EventTime {
  /** Microseconds since the Unix epoch. */
  micros: number;
  /** The same instant in canonical wire form (`2026-08-22T10:00:00.123456Z`). */
  timestamp: string;
}

/**
 * Hands out strictly increasing event times, so every event of a store has a distinct timestamp
 * and time order equals creation order, even within one millisecond or if the wall clock steps
 * back. Microseconds come from the high-resolution clock.
 */
export class EventClock {
  #last = 0;

  /** The next event time: now, or 1 µs after the previous one if that is later. */
  next(): EventTime {
    const now = Date.now() * 1000 + Math.floor((performance.now() % 1) * 1000);
    this.#last = Math.max(now, this.#last + 1);
    return { micros: this.#last, timestamp: microsToTimestamp(this.#last) };
  }

  /** Makes every later time come after `micros` (used when history is reloaded). */
  advancePast(micros: number): void {
    this.#last = Math.max(this.#last, micros);
  }
}

/** Canonical wire timestamp of an instant given in microseconds since the epoch. */
export function microsToTimestamp(micros: number): string {
  const millis = Math.floor(micros / 1000);
  return formatWireTimestamp(new Date(millis), micros - millis * 1000);
}

/** Microseconds since the epoch of a canonical wire timestamp (`…T10:00:00.123456Z`). */
export function timestampToMicros(timestamp: string): number {
  return Date.parse(`${timestamp.slice(0, 23)}Z`) * 1000 + Number(timestamp.slice(23, 26));
}
