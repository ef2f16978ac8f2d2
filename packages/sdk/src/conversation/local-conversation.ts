import { invalidArgument, type Workspace, WorkspaceError } from '@agent-workspace/core';
import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  formatWireTimestamp,
} from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';
import { newEventBase } from '../agent/new-event-base.js';
import { agentConfigOf } from './agent-config-of.js';
import { agentFinalResponse } from './agent-final-response.js';
import type { ConversationRunOptions } from './base-conversation.js';
import type { ConversationEvents } from './conversation-events.js';
import { ConversationHistory, type HistoryWriter } from './conversation-history.js';
import { ConversationStore } from './conversation-store.js';
import type { ConversationTools, UnavailableTool } from './conversation-tools.js';
import {
  conversationIdOf,
  type LocalConversationOptions,
  type LocalConversationState,
  type OpenLocalConversationOptions,
  type PersistedLocalConversation,
  persistedSummaryOf,
  prepareConversation,
  resumedStatus,
} from './local-conversation-options.js';
import type { PersistedConversationState } from './persisted-conversation-state.js';
import {
  type RunStop,
  runStopBeforeStep,
  stepFailure,
  userMessageArrived,
} from './run-stop-condition.js';

/**
 * A conversation whose agent loop runs in this process, over any {@link Workspace}. Events are
 * OpenHands wire JSON ({@link ConversationEvents}); status changes are also recorded as
 * `ConversationStateUpdateEvent`s (`execution_status`). With a `persistenceDir`, every event and
 * the state are on disk as they happen, and {@link LocalConversation.open} picks the
 * conversation up again. The history is bounded (`history` option): oversized events are cut,
 * memory holds the newest events (what `events` lists and the agent sees), the disk file the
 * newest `maxDiskBytes`; {@link LocalConversation.history} reads all that is kept.
 *
 * A run ({@link LocalConversation.run}) repeats agent steps until the agent finishes (status
 * `finished`), fails (`error`: the model could not be called, or the agent's `maxIterations`
 * were used up), repeats itself (`stuck`), or is paused (`paused`). Tool failures are events the
 * model reads, not the end of the run.
 */
export class LocalConversation implements AsyncDisposable {
  /** Conversation id (a dashed UUID). */
  readonly id: string;
  readonly agent: Agent;
  readonly workspace: Workspace;
  /** The events in memory (the newest, within `maxMemoryBytes`), oldest first; `subscribe()`. */
  readonly events: ConversationEvents;
  /** Every event kept, on disk and in memory, read as a stream. */
  readonly history: ConversationHistory;
  /** Where the conversation is persisted, if it is. */
  readonly persistenceDir: string | undefined;
  readonly #writer: HistoryWriter;
  readonly #eventView: readonly ConversationEventWire[];
  readonly #tools: ConversationTools;
  readonly #stuckThreshold: number;
  readonly #createdAt: string;
  readonly #agentConfig: Record<string, unknown> | null;
  #status: ConversationExecutionStatus;
  #run: { controller: AbortController; done: Promise<void> } | undefined;
  #closed: Promise<void> | undefined;

  private constructor(init: {
    id: string;
    options: LocalConversationOptions;
    writer: HistoryWriter;
    status: ConversationExecutionStatus;
    createdAt: string;
    stuckThreshold: number;
    agentConfig: Record<string, unknown> | null;
    tools: ConversationTools;
  }) {
    this.id = init.id;
    this.agent = init.options.agent;
    this.workspace = init.options.workspace;
    this.persistenceDir = init.options.persistenceDir;
    this.#writer = init.writer;
    this.history = init.writer.history;
    this.events = this.history.events;
    this.#eventView = init.writer.view;
    this.#tools = init.tools;
    this.#status = init.status;
    this.#createdAt = init.createdAt;
    this.#stuckThreshold = init.stuckThreshold;
    this.#agentConfig = init.agentConfig;
  }

  /** Starts a new conversation (status `idle`, no events). */
  static async create(options: LocalConversationOptions): Promise<LocalConversation> {
    const { stuckThreshold, limits, tools } = prepareConversation(options);
    const id = conversationIdOf(options);
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
            },
            limits,
          );
    return new LocalConversation({
      id,
      options,
      writer,
      status: 'idle',
      createdAt,
      stuckThreshold,
      agentConfig,
      tools,
    });
  }

  /**
   * Reopens the conversation persisted in `persistenceDir` with `agent` and `workspace`: its
   * status and its newest events come back (read from the end of the file, within
   * `maxMemoryBytes`), and `sendMessage` + `run` continue from them. A conversation that was
   * running when its process died comes back `paused`. `NOT_FOUND` when the directory holds no
   * conversation; `INVALID_CONFIG` when its state or an event read is corrupt (a torn last event
   * line is not corruption: it is skipped).
   */
  static async open(options: OpenLocalConversationOptions): Promise<LocalConversation> {
    const { stuckThreshold, limits, tools } = prepareConversation(options);
    const { writer, state } = await ConversationHistory.open(options.persistenceDir, limits);
    const conversation = new LocalConversation({
      id: state.id,
      options,
      writer,
      status: resumedStatus(state.execution_status),
      createdAt: state.created_at,
      stuckThreshold,
      agentConfig: agentConfigOf(options.agent),
      tools,
    });
    writer.saveState(conversation.#persistedState());
    await writer.flush();
    return conversation;
  }

  /**
   * What `persistenceDir` holds, without opening it (no events are read but the last line's
   * time): for listing conversations cheaply. `NOT_FOUND` / `INVALID_CONFIG` as `open`.
   */
  static async inspect(persistenceDir: string): Promise<PersistedLocalConversation> {
    return persistedSummaryOf(await ConversationStore.inspect(persistenceDir));
  }

  /** Tools of the agent not offered to the model, with why (known once the first run began). */
  get unavailableTools(): readonly UnavailableTool[] {
    return this.#tools.unavailable;
  }

  /** The conversation's id and execution status, as of now. */
  get state(): LocalConversationState {
    return { id: this.id, executionStatus: this.#status };
  }

  /**
   * Records a user message. During a run the agent reads it at its next step; otherwise the next
   * `run()` does. A `finished` conversation becomes `idle`, ready to run again. Resolves once
   * the message is persisted.
   */
  async sendMessage(text: string): Promise<void> {
    this.#assertOpen();
    if (typeof text !== 'string') throw invalidArgument('text', 'must be a string');
    this.#record({
      kind: 'MessageEvent',
      ...newEventBase(),
      source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text }] },
    });
    if (this.#status === 'finished') this.#setStatus('idle');
    await this.#writer.flush();
  }

  /**
   * Runs the agent until the run ends, and resolves to the status it ended with: `finished`,
   * `error`, `stuck` or `paused` (failures are events, not rejections; a rejection means the
   * conversation could not be persisted). A `finished` conversation has nothing to do until a
   * new message arrives: `run()` resolves at once. One run at a time: a second concurrent call is
   * refused with `RESOURCE_EXHAUSTED`.
   */
  async run({ signal }: ConversationRunOptions = {}): Promise<ConversationExecutionStatus> {
    this.#assertOpen();
    if (this.#run !== undefined) {
      throw new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message:
          'the conversation is already running: wait for run() to resolve, or pause() it first',
        details: { conversationId: this.id },
      });
    }
    if (this.#status === 'finished') return this.#status;
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const done = this.#loop(controller.signal).finally(() => {
      signal?.removeEventListener('abort', onAbort);
      this.#run = undefined;
    });
    this.#run = { controller, done };
    await done;
    await this.#writer.flush();
    return this.#status;
  }

  /**
   * Pauses the run: the model call or tool in flight is cancelled (an interrupted tool call is
   * answered with an `AgentErrorEvent`), then a `PauseEvent` is recorded and the status becomes
   * `paused`. Resolves once the run has stopped; does nothing when no run is going on.
   * `run()` resumes.
   */
  async pause(): Promise<void> {
    const run = this.#run;
    if (run === undefined) return;
    run.controller.abort();
    await run.done;
  }

  /**
   * The `message` of the agent's last `finish`, or its last text answer, among the events in
   * memory; `''` if none.
   */
  agentFinalResponse(): string {
    return agentFinalResponse(this.events);
  }

  /**
   * Pauses a run in progress, writes everything to disk and releases the files. The workspace is
   * not closed (it is the caller's). Idempotent; the conversation cannot be used afterwards.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.pause();
      await this.#writer.close();
      await this.#tools.close();
    })();
    return this.#closed;
  }

  /** Same as {@link LocalConversation.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #loop(signal: AbortSignal): Promise<void> {
    this.#setStatus('running');
    const { tools, actions } = await this.#tools.prepare();
    let iterations = 0;
    for (;;) {
      if (signal.aborted) return this.#paused();
      const stop = runStopBeforeStep({
        events: this.#eventView,
        stuckThreshold: this.#stuckThreshold,
        iterations,
        maxIterations: this.agent.maxIterations,
      });
      if (stop !== undefined) return this.#stop(stop);
      iterations += 1;
      const seen = this.history.recordedCount;
      let finished: boolean;
      try {
        ({ finished } = await this.agent.step({
          events: this.#eventView,
          emit: (event) => this.#record(event),
          workspace: this.workspace,
          actions,
          tools,
          signal,
        }));
      } catch (error) {
        if (signal.aborted) return this.#paused();
        return this.#stop(stepFailure(error));
      }
      // A message sent during the step is for the agent to answer: the run goes on.
      const unread = userMessageArrived(this.#eventView, this.history.recordedCount - seen);
      if (finished && !unread) return this.#setStatus('finished');
    }
  }

  #paused(): void {
    this.#record({ kind: 'PauseEvent', ...newEventBase(), source: 'user' });
    this.#setStatus('paused');
  }

  /** Records why the run ends, as an error event, and its status. */
  #stop({ code, detail, status }: RunStop): void {
    this.#record({
      kind: 'ConversationErrorEvent',
      ...newEventBase(),
      source: 'environment',
      code,
      detail,
    });
    this.#setStatus(status);
  }

  #setStatus(status: ConversationExecutionStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.#record({
      kind: 'ConversationStateUpdateEvent',
      ...newEventBase(),
      source: 'environment',
      key: CONVERSATION_STATE_KEYS.executionStatus,
      value: status,
    });
    this.#writer.saveState(this.#persistedState());
  }

  #record(event: ConversationEventWire): void {
    this.#writer.record(event);
  }

  #persistedState(): PersistedConversationState {
    return {
      id: this.id,
      execution_status: this.#status,
      agent: this.#agentConfig,
      created_at: this.#createdAt,
      updated_at: formatWireTimestamp(new Date()),
    };
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) {
      throw new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: 'the conversation is closed',
        details: { conversationId: this.id },
      });
    }
  }
}
