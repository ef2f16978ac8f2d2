import type { BashEventSearchQuery } from '@agent-workspace/protocol';
import type { CommandRecord, StoredBashEvent } from './bash-event-records.js';
import { timestampToMicros } from './event-clock.js';
import { lowerBound } from './lower-bound.js';

/**
 * Most bytes of events (as logged, about their JSON size) one search page carries; a page always
 * holds at least one event. With `limit` at most 100 and outputs of at most 64 Ki characters,
 * this keeps a page to a few MiB whatever the commands printed.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** Result of {@link searchBashEvents}. */
export interface BashEventStorePage {
  items: StoredBashEvent[];
  nextPageId: string | null;
}

/**
 * One page of `events` (time-ordered) matching `query`; `records` serves `commandIdEq`. Every
 * filter, `orderGt` included, applies before paging; a page ends at `limit` events or at
 * {@link MAX_PAGE_BYTES}. `nextPageId` is the timestamp of the first event of the next page.
 */
export function searchBashEvents(
  events: readonly StoredBashEvent[],
  records: ReadonlyMap<string, CommandRecord>,
  query: BashEventSearchQuery,
): BashEventStorePage {
  const { kindEq, commandIdEq, orderGt, limit } = query;
  let candidates = events;
  if (commandIdEq !== undefined) {
    candidates = kindEq === 'BashCommand' ? [] : (records.get(commandIdEq)?.outputs ?? []);
  }
  const gte = query.timestampGte === undefined ? -Infinity : timestampToMicros(query.timestampGte);
  const lt = query.timestampLt === undefined ? Infinity : timestampToMicros(query.timestampLt);
  const matches = ({ micros, event }: StoredBashEvent): boolean =>
    micros >= gte &&
    micros < lt &&
    (kindEq === undefined || event.kind === kindEq) &&
    (orderGt === undefined || event.kind !== 'BashOutput' || event.order > orderGt);
  const descending = query.sortOrder === 'TIMESTAMP_DESC';
  const cursor = query.pageId === undefined ? undefined : timestampToMicros(query.pageId);
  const step = descending ? -1 : 1;
  let index: number;
  if (descending) {
    index =
      cursor === undefined
        ? candidates.length - 1
        : lowerBound(candidates, (event) => event.micros > cursor) - 1;
  } else {
    index = cursor === undefined ? 0 : lowerBound(candidates, (event) => event.micros >= cursor);
  }
  const items: StoredBashEvent[] = [];
  let bytes = 0;
  for (; index >= 0 && index < candidates.length; index += step) {
    const event = candidates[index] as StoredBashEvent;
    if (!matches(event)) continue;
    const full =
      items.length === limit || (items.length > 0 && bytes + event.bytes > MAX_PAGE_BYTES);
    if (full) return { items, nextPageId: event.event.timestamp };
    items.push(event);
    bytes += event.bytes;
  }
  return { items, nextPageId: null };
}
