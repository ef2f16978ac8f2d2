import type { FastifyBaseLogger } from 'fastify';
import type { ConversationRecord, HeldConversation } from './conversation-record.js';
import { DEFAULT_MAX_LOADED_CONVERSATIONS } from './conversation-service-options.js';
import type { KeyedLock } from './keyed-lock.js';
import type { OpenedConversation } from './open-conversation.js';
import { EventPageCursors } from './search-conversation-events.js';

/** Options of {@link LoadedConversations}. */
export interface LoadedConversationsOptions {
  /** Most idle conversations kept loaded. Default {@link DEFAULT_MAX_LOADED_CONVERSATIONS}. */
  maxLoaded?: number | undefined;
  /** The service's per-id lock, under which a conversation is unloaded. */
  lock: KeyedLock;
  log: FastifyBaseLogger;
  /** Every conversation the service knows. */
  records: () => ConversationRecord[];
  /** True while a conversation has watchers (they keep it loaded). */
  isWatched: (id: string) => boolean;
}

/**
 * The conversations in memory: holding an opened one, dropping one, and unloading the least
 * recently used idle ones (persisted, no lease, no run, no watcher) past `maxLoaded`.
 */
export class LoadedConversations {
  readonly #options: LoadedConversationsOptions;
  readonly #maxLoaded: number;
  #count = 0;
  #closed = false;

  /** @throws RangeError when `maxLoaded` is not a positive integer. */
  constructor(options: LoadedConversationsOptions) {
    this.#options = options;
    this.#maxLoaded = options.maxLoaded ?? DEFAULT_MAX_LOADED_CONVERSATIONS;
    if (!Number.isSafeInteger(this.#maxLoaded) || this.#maxLoaded < 1) {
      throw new RangeError('maxLoadedConversations must be a positive integer');
    }
  }

  /** Number of conversations in memory. */
  get count(): number {
    return this.#count;
  }

  /** Makes `opened` the loaded conversation of `record`, keeping `updatedAt` current. */
  hold(
    record: ConversationRecord,
    { conversation, workspace }: OpenedConversation,
  ): HeldConversation {
    const held: HeldConversation = {
      record,
      conversation,
      workspace,
      run: undefined,
      cursors: new EventPageCursors(),
    };
    conversation.events.subscribe((event) => {
      if (typeof event.timestamp === 'string') record.updatedAt = event.timestamp;
    });
    record.loaded = held;
    this.#count += 1;
    return held;
  }

  /** Closes the loaded conversation of `record` and its workspace, if it has one. */
  async drop(record: ConversationRecord): Promise<void> {
    const held = record.loaded;
    if (held === undefined) return;
    record.loaded = undefined;
    this.#count -= 1;
    await held.conversation.close();
    await held.workspace.close();
  }

  /** Unloads the least recently used idle conversations past `maxLoaded`, in the background. */
  unloadIdle(): void {
    const excess = this.#count - this.#maxLoaded;
    if (excess <= 0 || this.#closed) return;
    const idle = this.#options
      .records()
      .filter((record) => this.#isIdle(record))
      .sort((a, b) => a.lastUsed - b.lastUsed)
      .slice(0, excess);
    for (const record of idle) {
      void this.#options.lock
        .run(record.meta.id, () => this.#unload(record))
        .catch((error: unknown) => {
          this.#options.log.warn({ err: error, conversationId: record.meta.id }, 'unload failed');
        });
    }
  }

  /** Stops unloading (the service is closing and drops every conversation itself). */
  close(): void {
    this.#closed = true;
  }

  #isIdle(record: ConversationRecord): boolean {
    const held = record.loaded;
    return (
      held !== undefined &&
      record.dir !== undefined &&
      record.leases === 0 &&
      held.run === undefined &&
      !this.#options.isWatched(record.meta.id)
    );
  }

  async #unload(record: ConversationRecord): Promise<void> {
    const held = record.loaded;
    if (held === undefined || !this.#isIdle(record)) return;
    record.status = held.conversation.state.executionStatus;
    await this.drop(record);
  }
}
