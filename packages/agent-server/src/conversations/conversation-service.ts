import { rm } from 'node:fs/promises';
import {
  formatWireTimestamp,
  type SendMessageRequestWire,
  type StartConversationRequestWire,
} from '@agent-workspace/protocol';
import { HttpError } from '../app/http-error.js';
import { listPersistedConversations } from './conversation-directories.js';
import { fullState, messageText } from './conversation-info.js';
import { writeMeta } from './conversation-meta.js';
import {
  type ConversationRecord,
  type ConversationWatcher,
  conversationRecord,
  type HeldConversation,
} from './conversation-record.js';
import {
  type ConversationServiceOptions,
  resolveConversationHistory,
} from './conversation-service-options.js';
import { ConversationWatchers } from './conversation-watchers.js';
import { KeyedLock } from './keyed-lock.js';
import { LoadedConversations } from './loaded-conversations.js';
import {
  type ConversationOpening,
  loadConversation,
  resolveWorkingDir,
  startConversation,
} from './open-conversation.js';

/** Most conversations one server holds; more are refused with 429. */
export const MAX_CONVERSATIONS = 1000;

/**
 * The server's conversations: `LocalConversation`s over workspaces from the `workspace` option,
 * persisted under `<stateDir>/conversations/<id>/` (`meta.json`, written last, + the sdk's
 * `conversation/`). At first use they are listed from their small metadata only; a conversation's
 * events are read (the newest, within `history.maxMemoryBytes`) when it is used, and idle ones
 * are unloaded past `maxLoadedConversations`. A run that was going on when the server stopped
 * comes back `paused`. Creating, loading, unloading, updating and deleting one id run one at a
 * time, so parallel starts with one `conversation_id` make one conversation.
 *
 * API keys are never written: the agent is persisted by `Agent.toConfig()` without its key, so
 * after a restart the model takes its key from the environment (as `LLM.fromConfig` does) or its
 * calls fail with an error event; the conversation is listed and readable either way.
 */
export class ConversationService {
  readonly #options: ConversationServiceOptions;
  readonly #opening: ConversationOpening;
  readonly #records = new Map<string, ConversationRecord>();
  readonly #watchers = new ConversationWatchers();
  readonly #loaded: LoadedConversations;
  readonly #idleWaiters = new Map<ConversationRecord, () => void>();
  readonly #lock = new KeyedLock();
  #listed: Promise<void> | undefined;
  #creating = 0;
  #uses = 0;
  #closed = false;

  /**
   * @throws RangeError naming the option when `history` or `maxLoadedConversations` is out of
   * range.
   */
  constructor(options: ConversationServiceOptions) {
    this.#options = options;
    this.#opening = { options, history: resolveConversationHistory(options.history) };
    this.#loaded = new LoadedConversations({
      maxLoaded: options.maxLoadedConversations,
      lock: this.#lock,
      log: options.log,
      records: () => this.list(),
      isWatched: (id) => this.#watchers.count(id) > 0,
    });
  }

  /** Lists the persisted conversations once (metadata only); every method awaits it. */
  ready(): Promise<void> {
    this.#listed ??= this.#list();
    return this.#listed;
  }

  /** Every conversation, in no particular order. */
  list(): ConversationRecord[] {
    return [...this.#records.values()];
  }

  /** The conversation `id`, or `undefined`. */
  get(id: string): ConversationRecord | undefined {
    return this.#records.get(id);
  }

  /** Number of conversations in memory. */
  get loadedCount(): number {
    return this.#loaded.count;
  }

  /**
   * Starts a conversation, or returns the existing one with `conversation_id` (`created: false`;
   * the request is then ignored). One id is created once, however many ask at the same time.
   * @throws HttpError 400/403 for a bad working dir, 422 for a bad agent, 429 when full.
   */
  async create(
    request: StartConversationRequestWire,
  ): Promise<{ record: ConversationRecord; created: boolean }> {
    await this.ready();
    const id = request.conversation_id ?? crypto.randomUUID();
    return this.#lock.run(id, async () => {
      const existing = this.#records.get(id);
      if (existing !== undefined) return { record: existing, created: false };
      this.#assertOpen();
      if (this.#records.size + this.#creating >= MAX_CONVERSATIONS) {
        throw new HttpError(429, `Too many conversations (at most ${MAX_CONVERSATIONS})`);
      }
      this.#creating += 1;
      try {
        const held = await this.#start(id, request);
        if (request.initial_message) await this.sendMessage(held, request.initial_message);
        return { record: held.record, created: true };
      } finally {
        this.#creating -= 1;
      }
    });
  }

  /**
   * Runs `task` with the conversation `id`, loaded if it was not; it stays loaded (and is not
   * deleted) until `task` settles.
   * @throws HttpError 404 when there is no such conversation.
   */
  async use<T>(id: string, task: (held: HeldConversation) => Promise<T> | T): Promise<T> {
    const held = await this.acquire(id);
    if (held === undefined) throw new HttpError(404, 'Conversation not found');
    try {
      return await task(held);
    } finally {
      this.release(held);
    }
  }

  /**
   * The conversation `id`, loaded if it was not, held for the caller until {@link release};
   * `undefined` when there is no such conversation.
   */
  async acquire(id: string): Promise<HeldConversation | undefined> {
    await this.ready();
    const record = this.#records.get(id);
    if (record === undefined) return undefined;
    let held = record.deleted ? undefined : record.loaded;
    if (held !== undefined) record.leases += 1;
    else {
      held = await this.#lock.run(id, async () => {
        if (record.deleted) return undefined;
        const loaded =
          record.loaded ?? this.#loaded.hold(record, await loadConversation(this.#opening, record));
        record.leases += 1;
        return loaded;
      });
      if (held === undefined) return undefined;
    }
    record.lastUsed = ++this.#uses;
    return held;
  }

  /** Gives back a conversation from {@link acquire}. */
  release(held: HeldConversation): void {
    const { record } = held;
    record.leases -= 1;
    if (record.leases === 0) this.#idleWaiters.get(record)?.();
    this.#loaded.unloadIdle();
  }

  /** Records a user message; with `run: true` starts a run unless one is going on. */
  async sendMessage(held: HeldConversation, message: SendMessageRequestWire): Promise<void> {
    await held.conversation.sendMessage(messageText(message));
    if (message.run && held.run === undefined) this.startRun(held);
  }

  /**
   * Starts a run in the background; the conversation stays loaded while it goes on.
   * @throws HttpError 409 while a run is going on.
   */
  startRun(held: HeldConversation): void {
    if (held.run !== undefined) {
      throw new HttpError(409, 'Conversation already running. Wait for completion or pause first.');
    }
    held.run = held.conversation
      .run()
      .then(
        () => undefined,
        (error: unknown) => {
          this.#options.log.error(
            { err: error, conversationId: held.record.meta.id },
            'run failed',
          );
        },
      )
      .finally(() => {
        held.run = undefined;
        if (this.#closed) return;
        this.#watchers.notify(held.record.meta.id, fullState(held));
        this.#loaded.unloadIdle();
      });
  }

  /**
   * Pauses the run, if any, and waits until it has stopped; `false` when there is no such
   * conversation. One that is not loaded has no run.
   */
  async pause(id: string): Promise<boolean> {
    await this.ready();
    const record = this.#records.get(id);
    if (record === undefined || record.deleted) return false;
    const held = record.loaded;
    if (held !== undefined) {
      await held.conversation.pause();
      await held.run;
    }
    return true;
  }

  /** Changes the title and tags; `false` when there is no such conversation. */
  async update(
    id: string,
    changes: { title?: string | undefined; tags?: Record<string, string> | undefined },
  ): Promise<boolean> {
    await this.ready();
    return this.#lock.run(id, async () => {
      const record = this.#records.get(id);
      if (record === undefined) return false;
      if (changes.title !== undefined) record.meta.title = changes.title;
      if (changes.tags !== undefined) record.meta.tags = changes.tags;
      record.updatedAt = formatWireTimestamp(new Date());
      if (record.dir !== undefined) await writeMeta(record.dir, record.meta);
      return true;
    });
  }

  /**
   * Stops and forgets the conversation, closes its workspace and removes its directory (the
   * working directory is kept), once the requests using it are done; `false` when there is no
   * such conversation.
   */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    return this.#lock.run(id, async () => {
      const record = this.#records.get(id);
      if (record === undefined) return false;
      this.#records.delete(id);
      record.deleted = true;
      if (record.leases > 0) {
        await new Promise<void>((resolve) => this.#idleWaiters.set(record, resolve));
        this.#idleWaiters.delete(record);
      }
      await this.#loaded.drop(record);
      if (record.dir !== undefined) await rm(record.dir, { recursive: true, force: true });
      return true;
    });
  }

  /**
   * Follows the conversation's new events and post-run snapshots; returns the unsubscribe. A
   * watched conversation stays loaded.
   */
  watch(held: HeldConversation, watcher: ConversationWatcher): () => void {
    const remove = this.#watchers.add(held.record.meta.id, watcher);
    const unsubscribe = held.conversation.events.subscribe(watcher);
    return () => {
      unsubscribe();
      remove();
      this.#loaded.unloadIdle();
    };
  }

  /** Number of watchers of a conversation. */
  watcherCount(id: string): number {
    return this.#watchers.count(id);
  }

  /** Pauses every run, closes every loaded conversation and its workspace (state stays on disk). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#loaded.close();
    await this.#listed?.catch(() => undefined);
    await Promise.all(
      this.list().map((record) => this.#lock.run(record.meta.id, () => this.#loaded.drop(record))),
    );
    this.#records.clear();
  }

  /** Makes a new conversation (see `startConversation`). */
  async #start(id: string, request: StartConversationRequestWire): Promise<HeldConversation> {
    const workingDir = resolveWorkingDir(this.#options.paths, request.workspace.working_dir);
    const started = await startConversation(this.#opening, {
      id,
      request,
      workingDir,
      assertStillWanted: () => this.#assertOpen(),
    });
    const record = conversationRecord({
      meta: started.meta,
      dir: started.dir,
      status: 'idle',
      updatedAt: started.meta.created_at,
      lastUsed: ++this.#uses,
    });
    this.#records.set(id, record);
    const held = this.#loaded.hold(record, started);
    this.#loaded.unloadIdle();
    return held;
  }

  /** @throws HttpError 503 once the service is closing. */
  #assertOpen(): void {
    if (this.#closed) throw new HttpError(503, 'The server is shutting down');
  }

  /** Lists the persisted conversations from their metadata alone. */
  async #list(): Promise<void> {
    const { stateDir, log } = this.#options;
    for (const record of await listPersistedConversations({ stateDir, log })) {
      this.#records.set(record.meta.id, record);
    }
  }
}
