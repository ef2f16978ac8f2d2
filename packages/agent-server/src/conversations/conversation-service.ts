import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type ActionExecutor, LocalWorkspace } from '@agent-workspace/core';
import { openDirectory, type PathWalker } from '@agent-workspace/core/internal';
import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationInfoWire,
  formatWireTimestamp,
  type SendMessageRequestWire,
  type StartConversationRequestWire,
} from '@agent-workspace/protocol';
import type { LocalConversation } from '@agent-workspace/sdk';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../app/http-error.js';
import { pathHttpError } from '../files/path-http-error.js';
import { agentFromWire, redactedAgent } from './agent-from-wire.js';
import { type ConversationMeta, META_FILE, writeMeta } from './conversation-meta.js';

/** Most conversations one server holds; more are refused with 429. */
export const MAX_CONVERSATIONS = 1000;

/** Subdirectory of the server's state dir that holds one directory per conversation. */
export const CONVERSATIONS_DIR = 'conversations';

/** One conversation the server holds. */
export interface HeldConversation {
  meta: ConversationMeta;
  conversation: LocalConversation;
  workspace: LocalWorkspace;
  /** The directory it is persisted in, if the server has a state dir. */
  dir: string | undefined;
  /** The run going on, if any. */
  run: Promise<void> | undefined;
  updatedAt: string;
}

/** Told each event of a conversation, and a `full_state` snapshot after each run. */
export type ConversationWatcher = (event: ConversationEventWire) => void;

/** Options of {@link ConversationService}. */
export interface ConversationServiceOptions {
  /** Resolves and confines `workspace.working_dir`. */
  paths: PathWalker;
  /** Where conversations are persisted; unset keeps them in memory. */
  stateDir: string | undefined;
  log: FastifyBaseLogger;
  /**
   * The server's runtime plugins, which run the browser and IPython tools of its conversations;
   * `null` when the server has none (those tools are then left out).
   */
  actions: () => ActionExecutor | null;
}

/**
 * The server's conversations: `LocalConversation`s over `LocalWorkspace`s, persisted under
 * `<stateDir>/conversations/<id>/` (`meta.json` + the sdk's `conversation/`) and reloaded on
 * first use after a start (a run that was going on comes back `paused`). API keys are never
 * written: the agent is persisted by `Agent.toConfig()` without its key, so after a restart the
 * model takes its key from the environment (as `LLM.fromConfig` does) or its calls fail with an
 * error event; the conversation is listed and readable either way.
 */
export class ConversationService {
  readonly #options: ConversationServiceOptions;
  readonly #held = new Map<string, HeldConversation>();
  readonly #watchers = new Map<string, Set<ConversationWatcher>>();
  #loaded: Promise<void> | undefined;
  #closed = false;

  constructor(options: ConversationServiceOptions) {
    this.#options = options;
  }

  /** Loads the persisted conversations once; every method awaits it. */
  ready(): Promise<void> {
    this.#loaded ??= this.#load();
    return this.#loaded;
  }

  /** Every held conversation, in no particular order. */
  list(): HeldConversation[] {
    return [...this.#held.values()];
  }

  /** The conversation `id`, or `undefined`. */
  get(id: string): HeldConversation | undefined {
    return this.#held.get(id);
  }

  /**
   * Starts a conversation, or returns the existing one with `conversation_id` (`created: false`).
   * @throws HttpError 400/403 for a bad working dir, 422 for a bad agent, 429 when full.
   */
  async create(
    request: StartConversationRequestWire,
  ): Promise<{ held: HeldConversation; created: boolean }> {
    await this.ready();
    const existing = request.conversation_id ? this.#held.get(request.conversation_id) : undefined;
    if (existing) return { held: existing, created: false };
    if (this.#held.size >= MAX_CONVERSATIONS) {
      throw new HttpError(429, `Too many conversations (at most ${MAX_CONVERSATIONS})`);
    }
    const workingDir = this.#resolveWorkingDir(request.workspace.working_dir);
    const agent = await agentFromWire(request.agent, request.max_iterations);
    const id = request.conversation_id ?? crypto.randomUUID();
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
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeMeta(dir, meta);
    }
    const workspace = new LocalWorkspace({ workingDir });
    const { LocalConversation } = await import('@agent-workspace/sdk');
    const conversation = await LocalConversation.create({
      agent,
      workspace,
      persistenceDir: dir === undefined ? undefined : path.join(dir, 'conversation'),
      stuckDetection: request.stuck_detection,
      actions: this.#options.actions(),
    });
    const held = this.#hold(meta, conversation, workspace, dir, now);
    if (request.initial_message) await this.sendMessage(held, request.initial_message);
    return { held, created: true };
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
   * Starts a run in the background.
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
          this.#options.log.error({ err: error, conversationId: held.meta.id }, 'run failed');
        },
      )
      .finally(() => {
        held.run = undefined;
        if (!this.#closed) this.#notify(held.meta.id, this.fullState(held));
      });
  }

  /** Pauses the run, if any, and waits until it has stopped. */
  async pause(held: HeldConversation): Promise<void> {
    await held.conversation.pause();
    await held.run;
  }

  /** Changes the title and tags. */
  async update(
    held: HeldConversation,
    changes: { title?: string | undefined; tags?: Record<string, string> | undefined },
  ): Promise<void> {
    if (changes.title !== undefined) held.meta.title = changes.title;
    if (changes.tags !== undefined) held.meta.tags = changes.tags;
    held.updatedAt = formatWireTimestamp(new Date());
    if (held.dir !== undefined) await writeMeta(held.dir, held.meta);
  }

  /** Stops and forgets the conversation and removes its directory; the workspace is kept. */
  async delete(held: HeldConversation): Promise<void> {
    this.#held.delete(held.meta.id);
    await held.conversation.close();
    await held.workspace.close();
    if (held.dir !== undefined) await rm(held.dir, { recursive: true, force: true });
  }

  /** The conversation's info: the agent's JSON without an API key. */
  info(held: HeldConversation): ConversationInfoWire {
    return {
      id: held.meta.id,
      workspace: held.meta.workspace,
      agent: redactedAgent(held.conversation.agent),
      execution_status: held.conversation.state.executionStatus,
      title: held.meta.title,
      created_at: held.meta.created_at,
      updated_at: held.updatedAt,
      max_iterations: held.meta.max_iterations,
      stuck_detection: held.meta.stuck_detection,
      tags: held.meta.tags,
      persistence_dir: held.dir ?? null,
    };
  }

  /** A `ConversationStateUpdateEvent` with `key: "full_state"` carrying the info. */
  fullState(held: HeldConversation): ConversationEventWire {
    return {
      kind: 'ConversationStateUpdateEvent',
      id: crypto.randomUUID(),
      timestamp: formatWireTimestamp(new Date()),
      source: 'environment',
      key: CONVERSATION_STATE_KEYS.fullState,
      value: this.info(held),
    } as ConversationEventWire;
  }

  /** Follows the conversation's events and post-run snapshots; returns the unsubscribe. */
  watch(held: HeldConversation, watcher: ConversationWatcher): () => void {
    const id = held.meta.id;
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
    };
  }

  /** Number of watchers of a conversation. */
  watcherCount(id: string): number {
    return this.#watchers.get(id)?.size ?? 0;
  }

  /** Pauses every run and closes every conversation (state stays on disk). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#loaded?.catch(() => undefined);
    await Promise.all(
      [...this.#held.values()].map(async (held) => {
        await held.conversation.close();
        await held.workspace.close();
      }),
    );
    this.#held.clear();
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

  #hold(
    meta: ConversationMeta,
    conversation: LocalConversation,
    workspace: LocalWorkspace,
    dir: string | undefined,
    updatedAt: string,
  ): HeldConversation {
    const held: HeldConversation = {
      meta,
      conversation,
      workspace,
      dir,
      run: undefined,
      updatedAt,
    };
    conversation.events.subscribe((event) => {
      held.updatedAt = typeof event.timestamp === 'string' ? event.timestamp : held.updatedAt;
    });
    this.#held.set(meta.id, held);
    return held;
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

  async #load(): Promise<void> {
    const { stateDir, log } = this.#options;
    if (stateDir === undefined) return;
    const root = path.join(stateDir, CONVERSATIONS_DIR);
    let names: string[];
    try {
      names = await readdir(root);
    } catch {
      return;
    }
    for (const name of names) {
      const dir = path.join(root, name);
      try {
        const meta = JSON.parse(
          await readFile(path.join(dir, META_FILE), 'utf8'),
        ) as ConversationMeta;
        const persistenceDir = path.join(dir, 'conversation');
        const state = JSON.parse(
          await readFile(path.join(persistenceDir, 'state.json'), 'utf8'),
        ) as {
          agent: unknown;
        };
        const agent = await agentFromWire(state.agent, meta.max_iterations);
        const workspace = new LocalWorkspace({ workingDir: meta.workspace.working_dir });
        const { LocalConversation } = await import('@agent-workspace/sdk');
        const conversation = await LocalConversation.open({
          agent,
          workspace,
          persistenceDir,
          stuckDetection: meta.stuck_detection,
          actions: this.#options.actions(),
        });
        const last = conversation.events.at(-1);
        this.#hold(meta, conversation, workspace, dir, String(last?.timestamp ?? meta.created_at));
      } catch (error) {
        log.warn({ err: error, dir }, 'a persisted conversation could not be reopened; skipped');
      }
    }
  }
}
