import type { ConversationSecrets } from '@agent-workspace/sdk';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../app/http-error.js';
import { listPersistedConversations } from './conversation-directories.js';
import type { ConversationMeta } from './conversation-meta.js';
import { type ConversationRecord, conversationRecord } from './conversation-record.js';

/** Most conversations one server holds; more are refused with 429. */
export const MAX_CONVERSATIONS = 1000;

/**
 * The conversations a server knows, by id: the persisted ones listed from their metadata and
 * those made since, at most {@link MAX_CONVERSATIONS} counting those being made, each stamped
 * with when it was last used (for unloading the least recently used).
 */
export class ConversationRecords {
  readonly #byId = new Map<string, ConversationRecord>();
  #creating = 0;
  #uses = 0;

  /** Adds the persisted conversations under `stateDir`, from their metadata alone. */
  async addPersisted(options: {
    stateDir: string | undefined;
    log: FastifyBaseLogger;
  }): Promise<void> {
    for (const record of await listPersistedConversations(options)) {
      this.#byId.set(record.meta.id, record);
    }
  }

  /** Every conversation, in no particular order. */
  list(): ConversationRecord[] {
    return [...this.#byId.values()];
  }

  /** The conversation `id`, or `undefined`. */
  get(id: string): ConversationRecord | undefined {
    return this.#byId.get(id);
  }

  /** Whether there is a conversation `id`. */
  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** Forgets the conversation `id`. */
  delete(id: string): void {
    this.#byId.delete(id);
  }

  /** Forgets every conversation. */
  clear(): void {
    this.#byId.clear();
  }

  /** Stamps `record` as the latest used. */
  touch(record: ConversationRecord): void {
    record.lastUsed = ++this.#uses;
  }

  /** @throws HttpError 429 when there are {@link MAX_CONVERSATIONS}, counting those being made. */
  assertRoom(): void {
    if (this.#byId.size + this.#creating >= MAX_CONVERSATIONS) {
      throw new HttpError(429, `Too many conversations (at most ${MAX_CONVERSATIONS})`);
    }
  }

  /**
   * Runs `create`, counted as a conversation being made until it settles.
   * @throws HttpError 429 when there is no room (see {@link assertRoom}).
   */
  async creating<T>(create: () => Promise<T>): Promise<T> {
    this.assertRoom();
    this.#creating += 1;
    try {
      return await create();
    } finally {
      this.#creating -= 1;
    }
  }

  /** Adds a conversation just made (started or forked): idle, the latest used. */
  add(
    made: { meta: ConversationMeta; dir: string | undefined },
    secrets?: ConversationSecrets,
  ): ConversationRecord {
    const { meta, dir } = made;
    const record = conversationRecord({
      secrets,
      meta,
      dir,
      status: 'idle',
      updatedAt: meta.created_at,
      lastUsed: ++this.#uses,
    });
    this.#byId.set(meta.id, record);
    return record;
  }
}
