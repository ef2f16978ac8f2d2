import type { ConversationEventWire } from '@agent-workspace/protocol';

/** Told each new event of a conversation, in order. */
export type ConversationEventListener = (event: ConversationEventWire) => void;

/**
 * The events of a conversation, oldest first, as OpenHands wire JSON, and a way to follow new
 * ones. A listener is called synchronously as each event is recorded; one that throws is
 * ignored, so it cannot stop the run. A `LocalConversation` keeps here only its newest events
 * (see `ConversationHistoryLimits.maxMemoryBytes`); its `history` reads them all.
 */
export class ConversationEvents implements Iterable<ConversationEventWire> {
  readonly #events: ConversationEventWire[];
  readonly #listeners = new Set<ConversationEventListener>();

  private constructor(initial: readonly ConversationEventWire[]) {
    this.#events = [...initial];
  }

  /**
   * A list for the conversation that owns it: `record` appends and tells the listeners, `evict`
   * forgets the `count` oldest, `view` is the live array for the agent loop. Others only read
   * and subscribe.
   * @param initial Events recorded before (a reopened conversation's history).
   */
  static create(initial: readonly ConversationEventWire[] = []): {
    events: ConversationEvents;
    record: (event: ConversationEventWire) => void;
    evict: (count: number) => void;
    view: readonly ConversationEventWire[];
  } {
    const events = new ConversationEvents(initial);
    return {
      events,
      record: (event) => events.#record(event),
      evict: (count) => {
        events.#events.splice(0, count);
      },
      view: events.#events,
    };
  }

  /** Number of events. */
  get length(): number {
    return this.#events.length;
  }

  /** The event at `index` (negative counts from the end), or `undefined`. */
  at(index: number): ConversationEventWire | undefined {
    return this.#events.at(index);
  }

  /** A copy of the list, oldest first. */
  toArray(): ConversationEventWire[] {
    return [...this.#events];
  }

  /** Iterates the events, oldest first. */
  [Symbol.iterator](): Iterator<ConversationEventWire> {
    return this.#events[Symbol.iterator]();
  }

  /** Calls `listener` for every event recorded from now on; returns the unsubscribe function. */
  subscribe(listener: ConversationEventListener): () => void {
    // Wrapped, so the same function subscribed twice is two subscriptions.
    const entry: ConversationEventListener = (event) => listener(event);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  #record(event: ConversationEventWire): void {
    this.#events.push(event);
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own: the run goes on.
      }
    }
  }
}
