import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  conversationEventWireSchema,
} from '@agent-workspace/protocol';
import { ConversationEvents } from './conversation-events.js';
import { executionStatusOf } from './execution-status-of.js';
import type { RemoteRunStatus } from './remote-run-status.js';

/** Options of {@link RemoteEventFeed}. */
export interface RemoteEventFeedOptions {
  /**
   * Pages the server's whole event list (`GET …/events/search`), oldest first; with `fromId`,
   * that event and the newer ones (none when the server no longer keeps it).
   */
  fetchEvents: (fromId?: string) => Promise<ConversationEventWire[]>;
  /** Told every execution status a live state update carries. */
  status: RemoteRunStatus;
}

/**
 * Merges a remote conversation's events into one list, deduplicated by id, in the server's
 * order: live frames from the events socket, and the REST pages that fill the gaps after a
 * (re)connect ({@link RemoteEventFeed.sync}) or bring what the socket has not yet delivered
 * ({@link RemoteEventFeed.catchUp}). While a page fill runs, live events are held back and
 * appended after it.
 * `full_state` snapshots are state, not history, and never enter the list.
 */
export class RemoteEventFeed {
  /** The events, oldest first, with `subscribe()` for new ones. */
  readonly events: ConversationEvents;
  readonly #record: (event: ConversationEventWire) => void;
  readonly #seen = new Set<string>();
  readonly #fetchEvents: (fromId?: string) => Promise<ConversationEventWire[]>;
  readonly #status: RemoteRunStatus;
  /** Live events held back while the list is being filled over REST, so the order holds. */
  #buffer: ConversationEventWire[] | undefined;
  #syncs: Promise<void> = Promise.resolve();
  /** The last fill failed, so live events may follow missing ones: the list may have a gap. */
  #gap = false;

  constructor({ fetchEvents, status }: RemoteEventFeedOptions) {
    const { events, record } = ConversationEvents.create();
    this.events = events;
    this.#record = record;
    this.#fetchEvents = fetchEvents;
    this.#status = status;
  }

  /**
   * Resolves once the fills under way have merged what they fetched and the live events held
   * back meanwhile; to false when the list may have a gap (the last fill failed).
   */
  async complete(): Promise<boolean> {
    await this.#syncs;
    return !this.#gap;
  }

  /** Holds live events back from now until the next {@link RemoteEventFeed.sync} ends. */
  hold(): void {
    this.#buffer ??= [];
  }

  /** Pages `GET …/events/search` and merges what is missing; live events wait meanwhile. */
  async sync(): Promise<void> {
    await this.#fill(() => this.#fetchEvents());
  }

  /**
   * Brings the events newer than the newest in the list, from the server's page starting at
   * that event (so what the socket has not delivered yet is in the list when this resolves);
   * the whole list is paged instead when the list may have a gap or the server no longer keeps
   * that event. Resolves to the execution status the server's newest status event carried when
   * the page was read (every status change is recorded as one), if any was found.
   */
  async catchUp(): Promise<ConversationExecutionStatus | undefined> {
    let status: ConversationExecutionStatus | undefined;
    await this.#fill(async () => {
      const newest = this.events.at(-1);
      if (!this.#gap && newest !== undefined) {
        const newer = await this.#fetchEvents(newest.id);
        if (newer[0]?.id === newest.id) {
          // The list (in the server's order, no gap) and the page after it are the history.
          status = lastExecutionStatus(newer) ?? lastExecutionStatus(this.events);
          return newer;
        }
      }
      const all = await this.#fetchEvents();
      status = lastExecutionStatus(all);
      return all;
    });
    return status;
  }

  /** Merges what `fetch` gets, live events held back meanwhile (one fill at a time). */
  #fill(fetch: () => Promise<ConversationEventWire[]>): Promise<void> {
    this.hold();
    const next = this.#syncs.then(async () => {
      let pages: ConversationEventWire[] = [];
      let fetched = false;
      try {
        pages = await fetch();
        fetched = true;
      } finally {
        const buffered = this.#buffer ?? [];
        this.#buffer = undefined;
        for (const event of pages) this.#accept(event);
        for (const event of buffered) this.#accept(event);
        // Live events after a failed fill may follow missing ones: the next fill pages it all.
        this.#gap = !fetched;
      }
    });
    this.#syncs = next.catch(() => {});
    return next;
  }

  /** A frame of the events socket: its status goes to the run status, the event to the list. */
  onFrame(frame: unknown): void {
    const parsed = conversationEventWireSchema.safeParse(frame);
    // Kinds this client does not model (e.g. a `ServerErrorEvent`) are skipped.
    if (!parsed.success) return;
    const event = parsed.data;
    if (event.kind === 'ConversationStateUpdateEvent') {
      const snapshot = event.key === CONVERSATION_STATE_KEYS.fullState;
      const status = executionStatusOf(event);
      if (status !== undefined) this.#status.report(status, { snapshot });
      // Snapshots are state, not history: each (re)connect and run end sends a new one.
      if (snapshot) return;
    }
    if (this.#buffer) this.#buffer.push(event);
    else this.#accept(event);
  }

  #accept(event: ConversationEventWire): void {
    if (this.#seen.has(event.id)) return;
    if (
      event.kind === 'ConversationStateUpdateEvent' &&
      event.key === CONVERSATION_STATE_KEYS.fullState
    ) {
      return;
    }
    this.#seen.add(event.id);
    this.#record(event);
  }
}

/** The execution status of the newest `execution_status` state update in `events`, if any. */
function lastExecutionStatus(
  events: Pick<readonly ConversationEventWire[], 'length' | 'at'>,
): ConversationExecutionStatus | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events.at(index)!;
    if (
      event.kind === 'ConversationStateUpdateEvent' &&
      event.key === CONVERSATION_STATE_KEYS.executionStatus
    ) {
      return executionStatusOf(event);
    }
  }
  return undefined;
}
