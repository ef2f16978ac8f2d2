import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '@agent-workspace/core';
import { openDirectory } from '@agent-workspace/core/internal';
import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  formatWireTimestamp,
  type SendMessageRequestWire,
  type StartConversationRequestWire,
} from '@agent-workspace/protocol';
import type { LocalConversation } from '@agent-workspace/sdk';
import { HttpError } from '../app/http-error.js';
import { pathHttpError } from '../files/path-http-error.js';
import { agentFromWire, redactedAgent, redactedAgentConfig } from './agent-from-wire.js';
import { type ConversationMeta, META_FILE, writeMeta } from './conversation-meta.js';
import {
  type ConversationHistoryOptions,
  type ConversationServiceOptions,
  DEFAULT_MAX_LOADED_CONVERSATIONS,
  resolveConversationHistory,
} from './conversation-service-options.js';
import { KeyedLock } from './keyed-lock.js';
import { EventPageCursors } from './search-conversation-events.js';

/** Most conversations one server holds; more are refused with 429. */
export const MAX_CONVERSATIONS = 1000;

/** Subdirectory of the server's state dir that holds one directory per conversation. */
export const CONVERSATIONS_DIR = 'conversations';

/** The sdk's directory (`state.json`, `events.jsonl`) inside a conversation's. */
const PERSISTENCE_SUBDIR = 'conversation';

/** Conversation directories the listing at first use reads at once. */
const LISTING_CONCURRENCY = 16;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A conversation the server knows: its metadata always, its events while it is loaded. */
export interface ConversationRecord {
  readonly meta: ConversationMeta;
  /** Its directory, when the server has a state dir. */
  readonly dir: string | undefined;
  /** Its status while it is not loaded. */
  status: ConversationExecutionStatus;
  /** Time of its last event (or change of title or tags). */
  updatedAt: string;
  /** The conversation in memory, while it is loaded. */
  loaded: HeldConversation | undefined;
  /** Requests using it now: it is neither unloaded nor deleted under them. */
  leases: number;
  /** When it was last used, in uses counted by the service (for unloading the oldest). */
  lastUsed: number;
  /** Deleted: new requests no longer find it. */
  deleted: boolean;
}

/** A loaded conversation. */
export interface HeldConversation {
  readonly record: ConversationRecord;
  readonly conversation: LocalConversation;
  readonly workspace: Workspace;
  /** The run going on, if any. */
  run: Promise<void> | undefined;
  /** Places of the `next_page_id`s its event pages gave out. */
  readonly cursors: EventPageCursors;
}

/** Told each event of a conversation, and a `full_state` snapshot after each run. */
export type ConversationWatcher = (event: ConversationEventWire) => void;

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
  readonly #history: Required<{ [K in keyof ConversationHistoryOptions]: number }>;
  readonly #maxLoaded: number;
  readonly #records = new Map<string, ConversationRecord>();
  readonly #watchers = new Map<string, Set<ConversationWatcher>>();
  readonly #idleWaiters = new Map<ConversationRecord, () => void>();
  readonly #lock = new KeyedLock();
  #listed: Promise<void> | undefined;
  #creating = 0;
  #loadedCount = 0;
  #uses = 0;
  #closed = false;

  /**
   * @throws RangeError naming the option when `history` or `maxLoadedConversations` is out of
   * range.
   */
  constructor(options: ConversationServiceOptions) {
    this.#options = options;
    this.#history = resolveConversationHistory(options.history);
    this.#maxLoaded = options.maxLoadedConversations ?? DEFAULT_MAX_LOADED_CONVERSATIONS;
    if (!Number.isSafeInteger(this.#maxLoaded) || this.#maxLoaded < 1) {
      throw new RangeError('maxLoadedConversations must be a positive integer');
    }
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
    return this.#loadedCount;
  }

  /** The conversation's status, live while it is loaded. */
  statusOf(record: ConversationRecord): ConversationExecutionStatus {
    return record.loaded?.conversation.state.executionStatus ?? record.status;
  }

  /** The conversation's info: the agent's JSON without an API key. */
  async info(record: ConversationRecord): Promise<ConversationInfoWire> {
    if (record.loaded !== undefined) return this.infoOf(record.loaded);
    let agent: Record<string, unknown> = {};
    if (record.dir !== undefined) {
      const { LocalConversation } = await import('@agent-workspace/sdk');
      const persisted = await LocalConversation.inspect(path.join(record.dir, PERSISTENCE_SUBDIR))
        .then((summary) => summary.agent)
        .catch(() => null); // deleted meanwhile
      agent = redactedAgentConfig(persisted);
    }
    return this.#infoWith(record, agent);
  }

  /** The info of a loaded conversation. */
  infoOf(held: HeldConversation): ConversationInfoWire {
    return this.#infoWith(held.record, redactedAgent(held.conversation.agent));
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
      if (this.#closed) throw new HttpError(503, 'The server is shutting down');
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
        const loaded = record.loaded ?? (await this.#load(record));
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
    this.#unloadIdle();
  }

  /** Records a user message; with `run: true` starts a run unless one is going on. */
  async sendMessage(held: HeldConversation, message: SendMessageRequestWire): Promise<void> {
    const text = message.content
      .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
      .join('\n');
    await held.conversation.sendMessage(text);
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
        this.#notify(held.record.meta.id, this.fullState(held));
        this.#unloadIdle();
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
      const held = record.loaded;
      if (held !== undefined) {
        record.loaded = undefined;
        this.#loadedCount -= 1;
        await held.conversation.close();
        await held.workspace.close();
      }
      if (record.dir !== undefined) await rm(record.dir, { recursive: true, force: true });
      return true;
    });
  }

  /** A `ConversationStateUpdateEvent` with `key: "full_state"` carrying the info. */
  fullState(held: HeldConversation): ConversationEventWire {
    return {
      kind: 'ConversationStateUpdateEvent',
      id: crypto.randomUUID(),
      timestamp: formatWireTimestamp(new Date()),
      source: 'environment',
      key: CONVERSATION_STATE_KEYS.fullState,
      value: this.infoOf(held),
    } as ConversationEventWire;
  }

  /**
   * Follows the conversation's new events and post-run snapshots; returns the unsubscribe. A
   * watched conversation stays loaded.
   */
  watch(held: HeldConversation, watcher: ConversationWatcher): () => void {
    const id = held.record.meta.id;
    let watchers = this.#watchers.get(id);
    if (!watchers) {
      watchers = new Set();
      this.#watchers.set(id, watchers);
    }
    watchers.add(watcher);
    const unsubscribe = held.conversation.events.subscribe(watcher);
    return () => {
      unsubscribe();
      watchers.delete(watcher);
      if (watchers.size === 0 && this.#watchers.get(id) === watchers) this.#watchers.delete(id);
      this.#unloadIdle();
    };
  }

  /** Number of watchers of a conversation. */
  watcherCount(id: string): number {
    return this.#watchers.get(id)?.size ?? 0;
  }

  /** Pauses every run, closes every loaded conversation and its workspace (state stays on disk). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#listed?.catch(() => undefined);
    await Promise.all(
      this.list().map((record) =>
        this.#lock.run(record.meta.id, async () => {
          const held = record.loaded;
          if (held === undefined) return;
          record.loaded = undefined;
          this.#loadedCount -= 1;
          await held.conversation.close();
          await held.workspace.close();
        }),
      ),
    );
    this.#records.clear();
  }

  #infoWith(record: ConversationRecord, agent: Record<string, unknown>): ConversationInfoWire {
    const { meta } = record;
    return {
      id: meta.id,
      workspace: meta.workspace,
      agent,
      execution_status: this.statusOf(record),
      title: meta.title,
      created_at: meta.created_at,
      updated_at: record.updatedAt,
      max_iterations: meta.max_iterations,
      stuck_detection: meta.stuck_detection,
      tags: meta.tags,
      persistence_dir: record.dir ?? null,
    };
  }

  /** Makes a new conversation; its `meta.json`, written last, is what makes it exist on disk. */
  async #start(id: string, request: StartConversationRequestWire): Promise<HeldConversation> {
    const workingDir = this.#resolveWorkingDir(request.workspace.working_dir);
    const agent = await agentFromWire(request.agent, request.max_iterations);
    const now = formatWireTimestamp(new Date());
    const meta: ConversationMeta = {
      id,
      workspace: { ...request.workspace, working_dir: workingDir },
      title: request.title ?? null,
      tags: request.tags,
      max_iterations: request.max_iterations,
      stuck_detection: request.stuck_detection,
      created_at: now,
    };
    const dir = this.#dirOf(id);
    if (dir !== undefined) {
      // What a create that did not finish (in this process) left goes.
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o700 });
    }
    const workspace = this.#options.workspace({ workingDir, conversationId: id });
    let conversation: LocalConversation | undefined;
    try {
      const { LocalConversation } = await import('@agent-workspace/sdk');
      conversation = await LocalConversation.create({
        agent,
        workspace,
        conversationId: id,
        persistenceDir: dir === undefined ? undefined : path.join(dir, PERSISTENCE_SUBDIR),
        stuckDetection: request.stuck_detection,
        actions: this.#options.actions(),
        history: this.#history,
      });
      if (dir !== undefined) await writeMeta(dir, meta);
      if (this.#closed) throw new HttpError(503, 'The server is shutting down');
    } catch (error) {
      await conversation?.close().catch(() => undefined);
      await workspace.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      throw error;
    }
    const record: ConversationRecord = {
      meta,
      dir,
      status: 'idle',
      updatedAt: now,
      loaded: undefined,
      leases: 0,
      lastUsed: ++this.#uses,
      deleted: false,
    };
    this.#records.set(id, record);
    const held = this.#hold(record, conversation, workspace);
    this.#unloadIdle();
    return held;
  }

  /** Reads a listed conversation back (under the id's lock). */
  async #load(record: ConversationRecord): Promise<HeldConversation> {
    const { meta, dir } = record;
    // Only persisted conversations are ever unloaded.
    if (dir === undefined) throw new Error(`conversation ${meta.id} has no directory to load from`);
    const persistenceDir = path.join(dir, PERSISTENCE_SUBDIR);
    const { LocalConversation } = await import('@agent-workspace/sdk');
    let workspace: Workspace | undefined;
    try {
      const summary = await LocalConversation.inspect(persistenceDir);
      const agent = await agentFromWire(summary.agent, meta.max_iterations);
      workspace = this.#options.workspace({
        workingDir: meta.workspace.working_dir,
        conversationId: meta.id,
      });
      const conversation = await LocalConversation.open({
        agent,
        workspace,
        persistenceDir,
        stuckDetection: meta.stuck_detection,
        actions: this.#options.actions(),
        history: this.#history,
      });
      return this.#hold(record, conversation, workspace);
    } catch (error) {
      await workspace?.close();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`conversation ${meta.id} could not be loaded: ${reason}`, { cause: error });
    }
  }

  #hold(
    record: ConversationRecord,
    conversation: LocalConversation,
    workspace: Workspace,
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
    this.#loadedCount += 1;
    return held;
  }

  /** Unloads the least recently used idle conversations past `maxLoadedConversations`. */
  #unloadIdle(): void {
    const excess = this.#loadedCount - this.#maxLoaded;
    if (excess <= 0 || this.#closed) return;
    const idle = this.list()
      .filter((record) => this.#isIdle(record))
      .sort((a, b) => a.lastUsed - b.lastUsed)
      .slice(0, excess);
    for (const record of idle) {
      void this.#lock
        .run(record.meta.id, () => this.#unload(record))
        .catch((error: unknown) => {
          this.#options.log.warn({ err: error, conversationId: record.meta.id }, 'unload failed');
        });
    }
  }

  #isIdle(record: ConversationRecord): boolean {
    const held = record.loaded;
    return (
      held !== undefined &&
      record.dir !== undefined &&
      record.leases === 0 &&
      held.run === undefined &&
      this.watcherCount(record.meta.id) === 0
    );
  }

  async #unload(record: ConversationRecord): Promise<void> {
    const held = record.loaded;
    if (held === undefined || !this.#isIdle(record)) return;
    record.status = held.conversation.state.executionStatus;
    record.loaded = undefined;
    this.#loadedCount -= 1;
    await held.conversation.close();
    await held.workspace.close();
  }

  #notify(id: string, event: ConversationEventWire): void {
    for (const watcher of [...(this.#watchers.get(id) ?? [])]) {
      try {
        watcher(event);
      } catch {
        // A watcher's failure is its own.
      }
    }
  }

  #dirOf(id: string): string | undefined {
    const { stateDir } = this.#options;
    return stateDir === undefined ? undefined : path.join(stateDir, CONVERSATIONS_DIR, id);
  }

  /** The real path of a working dir, checked (and confined) as the bash routes check cwds. */
  #resolveWorkingDir(input: string): string {
    try {
      const directory = openDirectory(this.#options.paths, input, 'workspace.working_dir');
      try {
        return directory.realPath();
      } finally {
        directory.close();
      }
    } catch (error) {
      throw pathHttpError(error, 'git');
    }
  }

  /** Lists the persisted conversations from `meta.json` and the sdk's `state.json` alone. */
  async #list(): Promise<void> {
    const { stateDir } = this.#options;
    if (stateDir === undefined) return;
    const root = path.join(stateDir, CONVERSATIONS_DIR);
    let names: string[];
    try {
      names = await readdir(root);
    } catch {
      return;
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) await this.#listOne(root, names[next++]!);
    };
    await Promise.all(Array.from({ length: LISTING_CONCURRENCY }, worker));
  }

  async #listOne(root: string, name: string): Promise<void> {
    const { log } = this.#options;
    const dir = path.join(root, name);
    try {
      let text: string;
      try {
        text = await readFile(path.join(dir, META_FILE), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !UUID_PATTERN.test(name)) {
          throw error;
        }
        await rm(dir, { recursive: true, force: true });
        log.warn({ dir }, 'removed a conversation whose creation did not finish');
        return;
      }
      const meta = JSON.parse(text) as ConversationMeta;
      if (meta.id !== name) throw new Error(`meta.json names ${JSON.stringify(meta.id)}`);
      const { LocalConversation } = await import('@agent-workspace/sdk');
      const summary = await LocalConversation.inspect(path.join(dir, PERSISTENCE_SUBDIR));
      this.#records.set(meta.id, {
        meta,
        dir,
        status: summary.executionStatus,
        updatedAt: summary.updatedAt,
        loaded: undefined,
        leases: 0,
        lastUsed: 0,
        deleted: false,
      });
    } catch (error) {
      log.warn({ err: error, dir }, 'a persisted conversation could not be listed; skipped');
    }
  }
}
