import { rm } from 'node:fs/promises';
import {
  type ForkConversationRequestWire,
  formatWireTimestamp,
  type SendMessageRequestWire,
  type StartConversationRequestWire,
} from '@agent-workspace/protocol';
import type { ConversationSecrets } from '@agent-workspace/sdk';
import { HttpError } from '../app/http-error.js';
import { ConversationActivity } from './conversation-activity.js';
import { messageText } from './conversation-info.js';
import { type ConversationMeta, writeMeta } from './conversation-meta.js';
import type {
  ConversationRecord,
  ConversationWatcher,
  HeldConversation,
} from './conversation-record.js';
import { ConversationRecords } from './conversation-records.js';
import { newConversationSecrets } from './conversation-secrets-of.js';
import {
  type ConversationServiceOptions,
  resolveConversationHistory,
} from './conversation-service-options.js';
import { forkConversation } from './fork-conversation.js';
import { KeyedLock } from './keyed-lock.js';
import { LoadedConversations } from './loaded-conversations.js';
import {
  type ConversationOpening,
  loadConversation,
  type OpenedConversation,
  resolveWorkingDir,
  startConversation,
} from './open-conversation.js';

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
  readonly #records = new ConversationRecords();
  readonly #loaded: LoadedConversations;
  readonly #activity: ConversationActivity;
  readonly #idleWaiters = new Map<ConversationRecord, () => void>();
  readonly #lock = new KeyedLock();
  #listed: Promise<void> | undefined;
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
      isWatched: (id) => this.#activity.watcherCount(id) > 0,
    });
    this.#activity = new ConversationActivity({
      log: options.log,
      settled: () => this.#loaded.unloadIdle(),
    });
  }

  /** Lists the persisted conversations once (metadata only); every method awaits it. */
  ready(): Promise<void> {
    this.#listed ??= this.#records.addPersisted(this.#options);
    return this.#listed;
  }

  /** Every conversation, in no particular order. */
  list(): ConversationRecord[] {
    return this.#records.list();
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
      return this.#records.creating(async () => {
        const held = await this.#start(id, request);
        if (request.initial_message) await this.sendMessage(held, request.initial_message);
        return { record: held.record, created: true };
      });
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
    this.#records.touch(record);
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
    if (message.run) await this.startRunUnlessRunning(held);
  }

  /**
   * Starts a run in the background; the conversation stays loaded while it goes on. One that
   * has just ended but still writes its events is waited for.
   * @throws HttpError 409 while a run is going on.
   */
  startRun(held: HeldConversation): Promise<void> {
    return this.#activity.startRun(held);
  }

  /** Starts a run in the background unless one is going on (see {@link startRun}). */
  startRunUnlessRunning(held: HeldConversation): Promise<void> {
    return this.#activity.startRunUnlessRunning(held);
  }

  /**
   * Asks the run, if any, to pause after its step in flight (OpenHands' pause) and returns at
   * once; `false` when there is no such conversation. One that is not loaded has no run.
   */
  async pause(id: string): Promise<boolean> {
    await this.ready();
    const record = this.#records.get(id);
    if (record === undefined || record.deleted) return false;
    this.#activity.pause(record.loaded);
    return true;
  }

  /**
   * Interrupts the run, if any (the call in flight is cancelled), and waits until it has
   * stopped; `false` when there is no such conversation.
   */
  async interrupt(id: string): Promise<boolean> {
    await this.ready();
    const record = this.#records.get(id);
    if (record === undefined || record.deleted) return false;
    await this.#activity.interrupt(record.loaded);
    return true;
  }

  /**
   * Forks conversation `id` into a new one (see `forkConversation`), loaded.
   * @throws HttpError 404 (no source, unknown event), 409 (the fork's id is taken), 429 (full).
   */
  async fork(id: string, request: ForkConversationRequestWire): Promise<ConversationRecord> {
    await this.ready();
    const forkId = request.id ?? crypto.randomUUID();
    const taken = (): HttpError =>
      new HttpError(409, `Conversation with id ${forkId} already exists`);
    if (this.#records.has(forkId)) throw taken();
    return this.use(id, (source) =>
      this.#lock.run(forkId, async () => {
        if (this.#records.has(forkId)) throw taken();
        this.#assertOpen();
        this.#records.assertRoom();
        const forked = await forkConversation(this.#opening, { source, forkId, request });
        return this.#admit(forked, forked.secrets).record;
      }),
    );
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
   * Follows the conversation's new events, its streamed deltas (`StreamingDeltaEvent`, not
   * recorded) and post-run snapshots; returns the unsubscribe. A watched conversation stays
   * loaded.
   */
  watch(held: HeldConversation, watcher: ConversationWatcher): () => void {
    return this.#activity.watch(held, watcher);
  }

  /** Number of watchers of a conversation. */
  watcherCount(id: string): number {
    return this.#activity.watcherCount(id);
  }

  /** Pauses every run, closes every loaded conversation and its workspace (state stays on disk). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#activity.close();
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
    const secrets = await newConversationSecrets();
    const started = await startConversation(this.#opening, {
      id,
      request,
      workingDir,
      assertStillWanted: () => this.#assertOpen(),
      secrets,
    });
    return this.#admit(started, secrets);
  }

  /** Holds a conversation just made (started or forked), loaded (see `ConversationRecords.add`). */
  #admit(
    made: OpenedConversation & { meta: ConversationMeta; dir: string | undefined },
    secrets?: ConversationSecrets,
  ): HeldConversation {
    const held = this.#loaded.hold(this.#records.add(made, secrets), made);
    this.#loaded.unloadIdle();
    return held;
  }

  /** @throws HttpError 503 once the service is closing. */
  #assertOpen(): void {
    if (this.#closed) throw new HttpError(503, 'The server is shutting down');
  }
}
