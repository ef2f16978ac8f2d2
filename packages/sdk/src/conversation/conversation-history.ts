import type { ConversationEventWire } from '@agent-workspace/protocol';
import { finalResponseOf } from './agent-final-response.js';
import { ConversationEvents } from './conversation-events.js';
import type { ResolvedHistoryLimits } from './conversation-history-limits.js';
import { ConversationStore, type StoredEvent } from './conversation-store.js';
import { fitEvent } from './fit-event.js';
import type { PersistedConversationState } from './persisted-conversation-state.js';

/** Options of {@link ConversationHistory.read}. */
export interface ReadHistoryOptions {
  /** `forward`: oldest first (default); `backward`: newest first. */
  direction?: 'forward' | 'backward' | undefined;
  /** Forward reads start with the event at this position (a {@link StoredEvent.position}). */
  from?: number | undefined;
  /** Backward reads start with the newest event whose line ends at or before this position. */
  before?: number | undefined;
}

/** What the conversation that owns a history writes through. */
export interface HistoryWriter {
  history: ConversationHistory;
  /** The events in memory, oldest first: the live array the agent loop reads. */
  view: readonly ConversationEventWire[];
  /** Cuts `event` to `maxEventBytes`, appends it, tells the listeners; returns what was kept. */
  record(event: ConversationEventWire): ConversationEventWire;
  /**
   * Queues an atomic rewrite of the state file with `state()`, as it is now; without a
   * persistence directory `state` is not even called.
   */
  saveState(state: () => PersistedConversationState): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The history of a `LocalConversation` within its {@link ConversationHistoryLimits}: every
 * event is cut to `maxEventBytes`; memory keeps the newest events that fit in `maxMemoryBytes`
 * ({@link ConversationHistory.events}); with a persistence directory, `events.jsonl` keeps up to
 * `maxDiskBytes` and {@link ConversationHistory.read} streams everything that is left, disk then
 * memory, holding one line at a time.
 */
export class ConversationHistory {
  /** The events in memory, oldest first, with `subscribe()` for new ones. */
  readonly events: ConversationEvents;
  /** The bounds this history keeps. */
  readonly limits: ResolvedHistoryLimits;
  readonly #store: ConversationStore | undefined;
  readonly #window: StoredEvent[];
  readonly #recordEvent: (event: ConversationEventWire) => void;
  readonly #evict: (count: number) => void;
  readonly #view: readonly ConversationEventWire[];
  #memoryBytes = 0;
  #memoryEnd = 0;
  #recorded = 0;

  private constructor(
    store: ConversationStore | undefined,
    tail: StoredEvent[],
    limits: ResolvedHistoryLimits,
  ) {
    this.#store = store;
    this.limits = limits;
    this.#window = tail;
    for (const entry of tail) this.#memoryBytes += entry.bytes;
    const { events, record, evict, view } = ConversationEvents.create(
      tail.map((entry) => entry.event),
    );
    this.events = events;
    this.#recordEvent = record;
    this.#evict = evict;
    this.#view = view;
  }

  /** A history kept in memory only. */
  static memory(limits: ResolvedHistoryLimits): HistoryWriter {
    return new ConversationHistory(undefined, [], limits).#writer();
  }

  /** A new history persisted in `directory` (see `ConversationStore.create`). */
  static async create(
    directory: string,
    state: PersistedConversationState,
    limits: ResolvedHistoryLimits,
  ): Promise<HistoryWriter> {
    const store = await ConversationStore.create(directory, state, limits);
    return new ConversationHistory(store, [], limits).#writer();
  }

  /** The history persisted in `directory`, with its newest events in memory, and the state. */
  static async open(
    directory: string,
    limits: ResolvedHistoryLimits,
  ): Promise<{ writer: HistoryWriter; state: PersistedConversationState }> {
    const { store, state, tail } = await ConversationStore.open(directory, limits);
    return { writer: new ConversationHistory(store, tail, limits).#writer(), state };
  }

  /** Summed line bytes of the events in memory. */
  get memoryBytes(): number {
    return this.#memoryBytes;
  }

  /** Events recorded since this history was made or opened. */
  get recordedCount(): number {
    return this.#recorded;
  }

  /**
   * Every event still kept, as of this call (later ones are not read), with its position: from
   * disk (those no longer in memory) then memory, or the reverse when `backward`. Nothing is
   * read until the first event is asked for; leaving the loop early closes the file.
   */
  read(options: ReadHistoryOptions = {}): AsyncIterable<StoredEvent> {
    const window = this.#window.slice();
    const windowStart = window[0]?.position ?? this.#store?.end ?? this.#memoryEnd;
    const store = this.#store;
    if (options.direction === 'backward') {
      const before = options.before ?? Number.POSITIVE_INFINITY;
      return (async function* () {
        for (let index = window.length - 1; index >= 0; index--) {
          const entry = window[index]!;
          if (entry.position + entry.bytes <= before) yield entry;
        }
        if (store !== undefined) {
          yield* store.read({ from: 0, before: Math.min(before, windowStart), backward: true });
        }
      })();
    }
    const from = options.from ?? 0;
    return (async function* () {
      if (store !== undefined && from < windowStart) {
        yield* store.read({ from, before: windowStart, backward: false });
      }
      for (const entry of window) if (entry.position >= from) yield entry;
    })();
  }

  /** The newest kept event with this id, or `undefined`. */
  async find(id: string): Promise<StoredEvent | undefined> {
    for await (const entry of this.read({ direction: 'backward' })) {
      if (entry.event.id === id) return entry;
    }
    return undefined;
  }

  /** `agentFinalResponse` over every kept event, newest first: read from disk only if needed. */
  async finalResponse(): Promise<string> {
    for await (const { event } of this.read({ direction: 'backward' })) {
      const response = finalResponseOf(event);
      if (response !== undefined) return response;
    }
    return '';
  }

  #writer(): HistoryWriter {
    const store = this.#store;
    return {
      history: this,
      view: this.#view,
      record: (event) => this.#record(event),
      saveState: (state) => store?.saveState(state()),
      flush: async () => store?.flush(),
      close: async () => store?.close(),
    };
  }

  #record(event: ConversationEventWire): ConversationEventWire {
    const { maxEventBytes, maxMemoryBytes } = this.limits;
    const fitted = fitEvent(event, maxEventBytes);
    let position: number;
    if (this.#store !== undefined) position = this.#store.append(fitted.line, fitted.bytes);
    else {
      position = this.#memoryEnd;
      this.#memoryEnd += fitted.bytes;
    }
    this.#window.push({ event: fitted.event, position, bytes: fitted.bytes });
    this.#memoryBytes += fitted.bytes;
    this.#recorded += 1;
    this.#recordEvent(fitted.event);
    let evicted = 0;
    while (this.#memoryBytes > maxMemoryBytes && evicted < this.#window.length - 1) {
      this.#memoryBytes -= this.#window[evicted]!.bytes;
      evicted += 1;
    }
    if (evicted > 0) {
      this.#window.splice(0, evicted);
      this.#evict(evicted);
    }
    return fitted.event;
  }
}
