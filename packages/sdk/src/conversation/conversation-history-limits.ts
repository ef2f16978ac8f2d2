import { invalidArgument } from '@agent-workspace/core';

/** Default {@link ConversationHistoryLimits.maxEventBytes}: 256 KiB. */
export const DEFAULT_MAX_EVENT_BYTES = 256 * 1024;

/** Default {@link ConversationHistoryLimits.maxMemoryBytes}: 8 MiB. */
export const DEFAULT_MAX_MEMORY_BYTES = 8 * 1024 ** 2;

/** Default {@link ConversationHistoryLimits.maxDiskBytes}: 64 MiB. */
export const DEFAULT_MAX_DISK_BYTES = 64 * 1024 ** 2;

/** Smallest `maxEventBytes`: room for an event's ids and names besides the cut markers. */
export const MIN_MAX_EVENT_BYTES = 16 * 1024;

/**
 * Bounds on one conversation's history. Sizes are those of an event's JSON line (UTF-8, with its
 * newline), as it is written to `events.jsonl`.
 */
export interface ConversationHistoryLimits {
  /**
   * Largest single event. A larger one (a huge observation, a long message) is cut: its longest
   * strings keep their head and tail around a `[... N bytes cut ...]` marker until it fits.
   * Default {@link DEFAULT_MAX_EVENT_BYTES}, at least {@link MIN_MAX_EVENT_BYTES}.
   */
  maxEventBytes?: number | undefined;
  /**
   * Most event bytes kept in memory: `events` (and so what the agent is shown) is the newest
   * events that fit. Older ones stay on disk, readable through `history.read()`. Default
   * {@link DEFAULT_MAX_MEMORY_BYTES}, at least `maxEventBytes`.
   */
  maxMemoryBytes?: number | undefined;
  /**
   * Most bytes of `events.jsonl`. Past it the file is compacted to the newest events filling
   * three quarters of it; older events are gone. Default {@link DEFAULT_MAX_DISK_BYTES}, at
   * least `maxMemoryBytes`.
   */
  maxDiskBytes?: number | undefined;
}

/** {@link ConversationHistoryLimits} with every bound set. */
export type ResolvedHistoryLimits = { [K in keyof ConversationHistoryLimits]-?: number };

/** Applies the defaults and checks the bounds; `INVALID_ARGUMENT` naming `history.<field>`. */
export function resolveHistoryLimits(
  limits: ConversationHistoryLimits = {},
): ResolvedHistoryLimits {
  const resolved: ResolvedHistoryLimits = {
    maxEventBytes: limits.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    maxMemoryBytes: limits.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES,
    maxDiskBytes: limits.maxDiskBytes ?? DEFAULT_MAX_DISK_BYTES,
  };
  const floors: [keyof ResolvedHistoryLimits, number, string][] = [
    ['maxEventBytes', MIN_MAX_EVENT_BYTES, String(MIN_MAX_EVENT_BYTES)],
    ['maxMemoryBytes', resolved.maxEventBytes, 'maxEventBytes'],
    ['maxDiskBytes', resolved.maxMemoryBytes, 'maxMemoryBytes'],
  ];
  for (const [field, floor, floorName] of floors) {
    const value = resolved[field];
    if (!Number.isSafeInteger(value) || value < floor) {
      throw invalidArgument(`history.${field}`, `must be an integer of at least ${floorName}`);
    }
  }
  return resolved;
}
