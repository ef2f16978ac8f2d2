import type { StoredBashEvent } from './bash-event-records.js';

/** How many of the oldest `events` must go to bring `bytes` down to `target` (or all of them). */
export function countOldestToFree(
  events: readonly StoredBashEvent[],
  bytes: number,
  target: number,
): number {
  let count = 0;
  let freed = 0;
  while (count < events.length && bytes - freed > target) {
    freed += (events[count] as StoredBashEvent).bytes;
    count++;
  }
  return count;
}
