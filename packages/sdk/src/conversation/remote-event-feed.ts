import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  conversationEventWireSchema,
} from '@agent-workspace/protocol';
import { ConversationEvents } from './conversation-events.js';
import { executionStatusOf } from './execution-status-of.js';
import type { RemoteRunStatus } from './remote-run-status.js';

/** Options of {@link RemoteEventFeed}. */
export interface RemoteEventFeedOptions {
  /** Pages the server's whole event list (`GET …/events/search`), oldest first. */
  fetchEvents: () => Promise<ConversationEventWire[]>;
  /** Told every execution status a live state update carries. */
  status: RemoteRunStatus;
}

/**
 * Merges a remote conversation's events into one list, deduplicated by id, in the server's
 * order: live frames from the events socket, and the REST pages that fill the gaps after a
 * (re)connect. While a page fill runs, live events are held back and appended after it.
 * `full_state` snapshots are state, not history, and never enter the list.
 */
export class RemoteEventFeed {
  /** The events, oldest first, with `subscribe()` for new ones. */
  readonly events: ConversationEvents;
  readonly #record: (event: ConversationEventWire) => void;
  readonly #seen = new Set<string>();
  readonly #fetchEvents: () => Promise<ConversationEventWire[]>;
  readonly #status: RemoteRunStatus;
  /** Live events held back while the list is being filled over REST, so the order holds. */
  #buffer: ConversationEventWire[] | undefined;
  #syncs: Promise<void> = Promise.resolve();

  constructor({ fetchEvents, status }: RemoteEventFeedOptions) {
    const { events, record } = ConversationEvents.create();
    this.events = events;
    this.#record = record;
    this.#fetchEvents = fetchEvents;
    this.#status = status;
  }

  /** Holds live events back from now until the next {@link RemoteEventFeed.sync} ends. */
  hold(): void {
    this.#buffer ??= [];
  }

  /** Pages `GET …/events/search` and merges what is missing; live events wait meanwhile. */
  sync(): Promise<void> {
    this.hold();
    const next = this.#syncs.then(async () => {
      let pages: ConversationEventWire[] = [];
      try {
        pages = await this.#fetchEvents();
      } finally {
        const buffered = this.#buffer ?? [];
        this.#buffer = undefined;
        for (const event of pages) this.#accept(event);
        for (const event of buffered) this.#accept(event);
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
      const status = executionStatusOf(event);
      if (status !== undefined) this.#status.report(status);
      // Snapshots are state, not history: each (re)connect and run end sends a new one.
      if (event.key === CONVERSATION_STATE_KEYS.fullState) return;
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
