import type { ConversationEventPageWire, ConversationEventWire } from '@agent-workspace/protocol';
import type { LocalConversation } from '@agent-workspace/sdk';

/**
 * Most bytes of events (as JSON lines) one events page carries; a page always holds at least one
 * event. With `limit` at most 100 and events of at most `maxEventBytes`, a page stays a few MiB.
 */
export const MAX_EVENT_PAGE_BYTES = 4 * 1024 * 1024;

/** Most `next_page_id`s a loaded conversation remembers the place of. */
const MAX_PAGE_CURSORS = 64;

type ConversationHistory = LocalConversation['history'];
type StoredEvent = NonNullable<Awaited<ReturnType<ConversationHistory['find']>>>;

/** Where an event's line is in a conversation's history. */
export type EventPlace = Pick<StoredEvent, 'position' | 'bytes'>;

/**
 * The places of the events a conversation's last pages named as `next_page_id`, so that paging
 * on starts there instead of looking for the event (least recently given out go first).
 */
export class EventPageCursors {
  readonly #places = new Map<string, EventPlace>();

  get(id: string): EventPlace | undefined {
    return this.#places.get(id);
  }

  set(id: string, place: EventPlace): void {
    this.#places.delete(id);
    this.#places.set(id, { position: place.position, bytes: place.bytes });
    if (this.#places.size > MAX_PAGE_CURSORS) {
      this.#places.delete(this.#places.keys().next().value as string);
    }
  }
}

/** Which events a search or count keeps. */
export interface EventFilter {
  /** `MessageEvent`, or OpenHands' fully-qualified `openhands.sdk...MessageEvent`. */
  kind?: string | undefined;
  source?: string | undefined;
}

/** What one page asks for. */
export interface EventPageQuery extends EventFilter {
  /** The id of the first event of the page (a previous `next_page_id`). */
  pageId?: string | undefined;
  limit: number;
  descending: boolean;
}

/**
 * One page of a conversation's events, streamed from its history (disk, then memory): filters
 * first, then at most `limit` events and {@link MAX_EVENT_PAGE_BYTES} (at least one event). An
 * unknown `pageId` gives an empty page.
 */
export async function searchConversationEvents(
  history: ConversationHistory,
  cursors: EventPageCursors,
  query: EventPageQuery,
): Promise<ConversationEventPageWire> {
  let start: EventPlace | undefined;
  if (query.pageId !== undefined) {
    start = cursors.get(query.pageId) ?? (await history.find(query.pageId));
    if (start === undefined) return { items: [], next_page_id: null };
  }
  const events = query.descending
    ? history.read({
        direction: 'backward',
        before: start === undefined ? undefined : start.position + start.bytes,
      })
    : history.read({ from: start?.position });
  const matches = eventMatcher(query);
  const items: ConversationEventWire[] = [];
  let bytes = 0;
  for await (const entry of events) {
    if (!matches(entry.event)) continue;
    if (
      items.length === query.limit ||
      (items.length > 0 && bytes + entry.bytes > MAX_EVENT_PAGE_BYTES)
    ) {
      cursors.set(entry.event.id, entry);
      return { items, next_page_id: entry.event.id };
    }
    items.push(entry.event);
    bytes += entry.bytes;
  }
  return { items, next_page_id: null };
}

/** How many of a conversation's kept events match `filter` (streamed). */
export async function countConversationEvents(
  history: ConversationHistory,
  filter: EventFilter,
): Promise<number> {
  const matches = eventMatcher(filter);
  let count = 0;
  for await (const { event } of history.read()) if (matches(event)) count += 1;
  return count;
}

/** Matches events by kind (bare or fully-qualified: the last dotted part) and source. */
export function eventMatcher(filter: EventFilter): (event: ConversationEventWire) => boolean {
  const kind = filter.kind?.split('.').at(-1);
  return (event) =>
    (kind === undefined || event.kind === kind) &&
    (filter.source === undefined || event.source === filter.source);
}
