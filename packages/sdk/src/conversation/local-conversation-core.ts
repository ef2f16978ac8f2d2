import { type Workspace, WorkspaceError } from '@agent-workspace/core';
import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  formatWireTimestamp,
} from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';
import { newEventBase } from '../events/new-event-base.js';
import type { LanguageModel } from '../llm/language-model.js';
import { ConversationSecrets } from '../secrets/conversation-secrets.js';
import { agentConfigOf } from './agent-config-of.js';
import { ConfirmationControl } from './confirmation-control.js';
import type { HaltMode } from './conversation-control.js';
import { ConversationHistory, type HistoryWriter } from './conversation-history.js';
import { ConversationLLMControl, switchedAgent } from './conversation-llm-control.js';
import type { ConversationTools } from './conversation-tools.js';
import { runLocalAgentLoop } from './local-conversation-loop.js';
import {
  conversationIdOf,
  type LocalConversationOptions,
  type OpenLocalConversationOptions,
  prepareConversation,
  resumedStatus,
} from './local-conversation-options.js';
import type { PersistedConversationState } from './persisted-conversation-state.js';

/** What a {@link LocalConversationCore} starts from. */
interface LocalConversationCoreInit {
  id: string;
  options: LocalConversationOptions;
  writer: HistoryWriter;
  status: ConversationExecutionStatus;
  createdAt: string;
  stuckThreshold: number;
  agentConfig: Record<string, unknown> | null;
  tools: ConversationTools;
  stats?: unknown;
  confirmation: ConfirmationControl;
  title?: string | null | undefined;
}

/**
 * The state of a `LocalConversation` and what changes it (recording, status, persistence, the
 * run and its halting); internal: `LocalConversation` delegates to it.
 */
export class LocalConversationCore {
  readonly id: string;
  readonly workspace: Workspace;
  readonly persistenceDir: string | undefined;
  readonly writer: HistoryWriter;
  /** The events in memory, as the agent sees them. */
  readonly eventView: readonly ConversationEventWire[];
  readonly tools: ConversationTools;
  readonly secrets: ConversationSecrets;
  readonly confirmation: ConfirmationControl;
  readonly llmControl: ConversationLLMControl;
  readonly stuckThreshold: number;
  /** The title; persisted by the next {@link LocalConversationCore.save}. */
  title: string | null;
  readonly #createdAt: string;
  #agent: Agent;
  #agentConfig: Record<string, unknown> | null;
  #status: ConversationExecutionStatus;
  #run: { controller: AbortController; done: Promise<void> } | undefined;
  /** How the run is being stopped, once `pause()` or `interrupt()` asked. */
  #halting: HaltMode | undefined;
  #closed: Promise<void> | undefined;

  private constructor(init: LocalConversationCoreInit) {
    this.id = init.id;
    this.#agent = init.options.agent;
    this.#agentConfig = init.agentConfig;
    this.workspace = init.options.workspace;
    this.persistenceDir = init.options.persistenceDir;
    this.writer = init.writer;
    this.eventView = init.writer.view;
    this.tools = init.tools;
    this.secrets = init.options.secrets ?? new ConversationSecrets();
    this.confirmation = init.confirmation;
    this.#status = init.status;
    this.#createdAt = init.createdAt;
    this.stuckThreshold = init.stuckThreshold;
    this.title = init.title ?? null;
    this.llmControl = new ConversationLLMControl({
      stats: init.stats,
      record: (event) => this.record(event),
      saveState: () => this.writer.saveState(() => this.persistedState()),
    });
  }

  /** The state of a new conversation (status `idle`, no events). */
  static async create(options: LocalConversationOptions): Promise<LocalConversationCore> {
    const { stuckThreshold, limits, tools } = prepareConversation(options);
    const id = conversationIdOf(options);
    const confirmation = ConfirmationControl.of(options);
    const createdAt = formatWireTimestamp(new Date());
    const agentConfig = agentConfigOf(options.agent);
    const writer =
      options.persistenceDir === undefined
        ? ConversationHistory.memory(limits)
        : await ConversationHistory.create(
            options.persistenceDir,
            {
              id,
              execution_status: 'idle',
              agent: agentConfig,
              created_at: createdAt,
              updated_at: createdAt,
              ...confirmation.persisted(),
            },
            limits,
          );
    return new LocalConversationCore({
      ...{ id, options, writer, status: 'idle', createdAt, stuckThreshold },
      ...{ agentConfig, tools, confirmation },
    });
  }

  /** The state of the conversation persisted in `persistenceDir` (`LocalConversation.open`). */
  static async open(options: OpenLocalConversationOptions): Promise<LocalConversationCore> {
    const { stuckThreshold, limits, tools } = prepareConversation(options);
    const { writer, state } = await ConversationHistory.open(options.persistenceDir, limits);
    const confirmation = await ConfirmationControl.ofOpened(options, state, () => writer.close());
    const core = new LocalConversationCore({
      id: state.id,
      options,
      writer,
      status: resumedStatus(state.execution_status),
      createdAt: state.created_at,
      stuckThreshold,
      agentConfig: agentConfigOf(options.agent),
      tools,
      stats: state.stats,
      confirmation,
      title: state.title,
    });
    await core.save();
    return core;
  }

  get agent(): Agent {
    return this.#agent;
  }

  get status(): ConversationExecutionStatus {
    return this.#status;
  }

  /** Whether a run is going on. */
  get running(): boolean {
    return this.#run !== undefined;
  }

  get halting(): HaltMode | undefined {
    return this.#halting;
  }

  /** Moves the agent to `llm`, recorded and persisted (`LocalConversation.switchLlm`). */
  async switchLlm(llm: LanguageModel): Promise<void> {
    this.#agent = switchedAgent(this.#agent, llm);
    this.#agentConfig = agentConfigOf(this.#agent);
    this.llmControl.recordAgentChange(this.#agentConfig);
    await this.save();
  }

  /** Starts a run and resolves to its end status (`LocalConversation.run`). */
  async run(signal: AbortSignal | undefined): Promise<ConversationExecutionStatus> {
    if (this.#run !== undefined) {
      throw new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message:
          'the conversation is already running: wait for run() to resolve, or pause() it first',
        details: { conversationId: this.id },
      });
    }
    if (this.#status === 'finished') return this.#status;
    // Held actions run only once accepted (`respondToConfirmation`), never by a bare run().
    if (this.#status === 'waiting_for_confirmation' && !this.confirmation.hasAccepted) {
      return this.#status;
    }
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const done = runLocalAgentLoop(this, controller.signal).finally(() => {
      signal?.removeEventListener('abort', onAbort);
      this.#run = undefined;
      this.#halting = undefined;
    });
    this.#run = { controller, done };
    await done;
    await this.writer.flush();
    return this.#status;
  }

  /** Resolves once the run going on (if any) has ended, without stopping it. */
  async runEnded(): Promise<void> {
    await this.#run?.done;
  }

  /** Stops the run going on (see `pause` and `interrupt`); an interrupt overrides a pause. */
  async halt(mode: HaltMode): Promise<void> {
    const run = this.#run;
    if (run === undefined) return;
    if (mode === 'interrupt') {
      this.#halting = 'interrupt';
      run.controller.abort();
    } else {
      this.#halting ??= 'pause';
    }
    await run.done;
  }

  /** Interrupts a run, writes everything and releases the files; idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.halt('interrupt');
      await this.writer.close();
      await this.tools.close();
    })();
    return this.#closed;
  }

  setStatus(status: ConversationExecutionStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.record({
      kind: 'ConversationStateUpdateEvent',
      ...newEventBase(),
      source: 'environment',
      key: CONVERSATION_STATE_KEYS.executionStatus,
      value: status,
    });
    this.writer.saveState(() => this.persistedState());
  }

  /** Records `event`, its secrets masked. */
  record(event: ConversationEventWire): void {
    this.writer.record(this.secrets.maskEvent(event));
  }

  /** Persists the state and waits until everything is written. */
  async save(): Promise<void> {
    this.writer.saveState(() => this.persistedState());
    await this.writer.flush();
  }

  persistedState(): PersistedConversationState {
    return {
      id: this.id,
      execution_status: this.#status,
      agent: this.#agentConfig,
      created_at: this.#createdAt,
      updated_at: formatWireTimestamp(new Date()),
      title: this.title,
      stats: this.llmControl.stats.toJSON(),
      ...this.confirmation.persisted(),
    };
  }

  /** @throws WorkspaceError `WORKSPACE_CLOSED` once `close()` was called. */
  assertOpen(): void {
    if (this.#closed !== undefined) {
      throw new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: 'the conversation is closed',
        details: { conversationId: this.id },
      });
    }
  }
}
