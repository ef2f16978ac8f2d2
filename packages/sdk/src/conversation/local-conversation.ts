import { invalidArgument, type Workspace } from '@agent-workspace/core';
import {
  CONVERSATION_STATE_KEYS,
  type ConversationExecutionStatus,
  type ConversationStatsWire,
} from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';
import { newEventBase } from '../events/new-event-base.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { SecretsUpdate } from '../secrets/secret-source.js';
import type { ConfirmationPolicyInput } from '../security/confirmation-policy.js';
import type { SecurityAnalyzerOption } from '../security/security-analyzer.js';
import { agentFinalResponse } from './agent-final-response.js';
import type { ConversationRunOptions } from './base-conversation.js';
import type { ConfirmationResponse, ConfirmationSettings } from './confirmation-control.js';
import {
  type CondenseOptions,
  checkedTitle,
  condenseHistory,
  type ForkLocalConversationOptions,
  forkedEvents,
} from './conversation-control.js';
import type { ConversationEvents } from './conversation-events.js';
import type { ConversationHistory } from './conversation-history.js';
import {
  type AskAgentOptions,
  askConversationAgent,
  type StreamingDeltaListener,
} from './conversation-llm-control.js';
import type { UnavailableTool } from './conversation-tools.js';
import { inspectPersistedConversation } from './inspect-persisted-conversation.js';
import { LocalConversationCore } from './local-conversation-core.js';
import {
  type LocalConversationOptions,
  type LocalConversationState,
  type OpenLocalConversationOptions,
  type PersistedLocalConversation,
  persistedSummaryOf,
} from './local-conversation-options.js';

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
  readonly workspace: Workspace;
  /** The events in memory (the newest, within `maxMemoryBytes`), oldest first; `subscribe()`. */
  readonly events: ConversationEvents;
  /** Every event kept, on disk and in memory, read as a stream. */
  readonly history: ConversationHistory;
  /** Where the conversation is persisted, if it is. */
  readonly persistenceDir: string | undefined;
  readonly #core: LocalConversationCore;

  private constructor(core: LocalConversationCore) {
    this.#core = core;
    this.id = core.id;
    this.workspace = core.workspace;
    this.persistenceDir = core.persistenceDir;
    this.history = core.writer.history;
    this.events = this.history.events;
  }

  /** Starts a new conversation (status `idle`, no events). */
  static async create(options: LocalConversationOptions): Promise<LocalConversation> {
    return new LocalConversation(await LocalConversationCore.create(options));
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
    return new LocalConversation(await LocalConversationCore.open(options));
  }

  /**
   * What `persistenceDir` holds, without opening it (no events are read but the last line's
   * time): for listing conversations cheaply. `NOT_FOUND` / `INVALID_CONFIG` as `open`.
   */
  static async inspect(persistenceDir: string): Promise<PersistedLocalConversation> {
    return persistedSummaryOf(await inspectPersistedConversation(persistenceDir));
  }

  /** Tools of the agent not offered to the model, with why (known once the first run began). */
  get unavailableTools(): readonly UnavailableTool[] {
    return this.#core.tools.unavailable;
  }

  /** The agent; {@link LocalConversation.switchLlm} replaces it with one on another model. */
  get agent(): Agent {
    return this.#core.agent;
  }

  /**
   * Token usage and cost per usage id (OpenHands' `ConversationStats`, full form), a copy;
   * persisted with the state. With `records: false` the per-call record lists are left empty
   * (the totals, cheap however many calls). See the README "Streaming, stats, switchLlm and
   * askAgent".
   */
  stats(options: { records?: boolean } = {}): ConversationStatsWire {
    return this.#core.llmControl.stats.toJSON(options);
  }

  /**
   * Runs the agent's next model calls on `llm` (a call in flight finishes on the old one); the
   * new model is recorded in the persisted agent and in a `ConversationStateUpdateEvent`
   * `key: "agent"`. Stats keep each model's usage apart.
   */
  async switchLlm(llm: LanguageModel): Promise<void> {
    this.#core.assertOpen();
    await this.#core.switchLlm(llm);
  }

  /**
   * Answers a side question with the history as context, without running tools or recording
   * events (OpenHands' `ask_agent`); usage counts in the stats under `ask-agent-llm`. Works
   * during a run. See `askAgent` for the errors.
   */
  async askAgent(question: string, options: AskAgentOptions = {}): Promise<string> {
    const core = this.#core;
    core.assertOpen();
    const { tools } = await core.tools.prepare();
    const answer = await askConversationAgent(core.llmControl, {
      ...{ agent: core.agent, events: core.eventView, tools, question },
      signal: options.signal,
    });
    return core.secrets.mask(answer);
  }

  /**
   * Calls `listener` with each `StreamingDeltaEvent` (a model with `stream` on) as it arrives;
   * deltas are transient, never in `events`. Returns the unsubscribe.
   */
  subscribeStreamingDeltas(listener: StreamingDeltaListener): () => void {
    return this.#core.llmControl.subscribeDeltas(listener);
  }

  /** The conversation's id and execution status, as of now. */
  get state(): LocalConversationState {
    return { id: this.id, executionStatus: this.#core.status };
  }

  /** The confirmation policy and the security analyzer's kind (README "Confirmation mode"). */
  get confirmation(): ConfirmationSettings {
    return this.#core.confirmation.settings;
  }

  /** Sets the confirmation policy, persisted. `INVALID_ARGUMENT` naming the bad part. */
  async setConfirmationPolicy(policy: ConfirmationPolicyInput): Promise<void> {
    this.#core.assertOpen();
    this.#core.confirmation.setPolicy(policy);
    this.#recordSetting('confirmationPolicy', this.#core.confirmation.settings.policy);
    await this.#core.save();
  }

  /** Sets the security analyzer (`null`: none), recorded by kind. `INVALID_ARGUMENT` if bad. */
  async setSecurityAnalyzer(analyzer: SecurityAnalyzerOption): Promise<void> {
    this.#core.assertOpen();
    this.#core.confirmation.setAnalyzer(analyzer);
    this.#recordSetting('securityAnalyzer', this.#core.confirmation.settings.securityAnalyzer);
    await this.#core.save();
  }

  /**
   * Answers the actions waiting for confirmation: accepted, they run (the run goes on and this
   * resolves to its end status; `run: false` leaves that to the next `run()`); rejected, each gets
   * a `UserRejectObservation` and never runs, and the status becomes `idle`. `NOT_FOUND` when
   * nothing waits; `INVALID_ARGUMENT` for a bad `reason`.
   */
  async respondToConfirmation(
    response: ConfirmationResponse,
  ): Promise<ConversationExecutionStatus> {
    const core = this.#core;
    core.assertOpen();
    if (core.status === 'waiting_for_confirmation') await core.runEnded(); // the run is ending
    const rejections = core.confirmation.respond(response, core.status, core.eventView);
    for (const event of rejections) core.record(event);
    if (!response.accept) core.setStatus('idle');
    await core.writer.flush();
    if (!response.accept || response.run === false) return core.status;
    return this.run({ signal: response.signal });
  }

  /** Adds or replaces secrets, in memory only (see `ConversationSecrets.update`, README "Secrets"). */
  async updateSecrets(secrets: SecretsUpdate): Promise<void> {
    this.#core.assertOpen();
    this.#core.secrets.update(secrets);
  }

  /**
   * Records a user message. During a run the agent reads it at its next step; otherwise the next
   * `run()` does. A `finished` conversation becomes `idle`, ready to run again. Resolves once
   * the message is persisted.
   */
  async sendMessage(text: string): Promise<void> {
    this.#core.assertOpen();
    if (typeof text !== 'string') throw invalidArgument('text', 'must be a string');
    this.#core.record({
      kind: 'MessageEvent',
      ...newEventBase(),
      source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text }] },
    });
    if (this.#core.status === 'finished') this.#core.setStatus('idle');
    await this.#core.writer.flush();
  }

  /**
   * Runs the agent until the run ends, and resolves to the status it ended with: `finished`,
   * `error`, `stuck`, `paused` or `waiting_for_confirmation` (failures are events, not rejections; a rejection means the
   * conversation could not be persisted). A `finished` conversation has nothing to do until a
   * new message arrives: `run()` resolves at once. One run at a time: a second concurrent call is
   * refused with `RESOURCE_EXHAUSTED`.
   */
  async run({ signal }: ConversationRunOptions = {}): Promise<ConversationExecutionStatus> {
    this.#core.assertOpen();
    return this.#core.run(signal);
  }

  /**
   * Pauses the run as OpenHands does: the step in flight (model call and tools) finishes, then a
   * `PauseEvent` is recorded and the status becomes `paused` (a step that finishes the agent
   * ends the run `finished`). Resolves once the run has stopped; does nothing when no run is
   * going on. `run()` resumes. {@link LocalConversation.interrupt} stops at once.
   */
  pause(): Promise<void> {
    return this.#core.halt('pause');
  }

  /**
   * Interrupts the run (OpenHands' `interrupt`): the model call or tool in flight is cancelled
   * (an interrupted tool call is answered with an `AgentErrorEvent`), then an `InterruptEvent`
   * is recorded and the status becomes `paused`. Resolves once the run has stopped; does nothing
   * when no run is going on. `run()` resumes.
   */
  interrupt(): Promise<void> {
    return this.#core.halt('interrupt');
  }

  /** The conversation's title; `null` until {@link LocalConversation.setTitle}. */
  get title(): string | null {
    return this.#core.title;
  }

  /** Sets the title (1 to 200 characters, else `INVALID_ARGUMENT`), persisted with the state. */
  async setTitle(title: string): Promise<void> {
    this.#core.assertOpen();
    this.#core.title = checkedTitle(title);
    await this.#core.save();
  }

  /**
   * Forces a condensation of the history shown to the model (OpenHands' `condense`): records a
   * `CondensationRequest` and, outside a run, the agent's condenser's `Condensation` (during a
   * run, its next step does). `NOT_SUPPORTED` without a condenser that condenses on request, or
   * when there is nothing to forget.
   */
  async condense({ signal }: CondenseOptions = {}): Promise<void> {
    const core = this.#core;
    core.assertOpen();
    await condenseHistory({
      ...{ agent: core.agent, events: core.eventView, record: (event) => core.record(event) },
      ...{ running: core.running, signal, onLLMResponse: core.llmControl.condenserListener() },
    });
    await core.writer.flush();
  }

  /**
   * A new, independent conversation holding this one's kept events up to `fromEventId` (default
   * all; the same event ids), status `idle`, with the same agent and workspace unless given.
   * Give it its own `persistenceDir` (or none). The secrets are copied (as OpenHands does; the
   * fork's own `secrets` option replaces them), and so are the confirmation policy and analyzer
   * (its own `confirmationPolicy` / `securityAnalyzer` replace them). `NOT_FOUND` for an unknown `fromEventId`.
   */
  async fork(options: ForkLocalConversationOptions = {}): Promise<LocalConversation> {
    this.#core.assertOpen();
    const { fromEventId, title, ...rest } = options;
    if (title !== undefined) checkedTitle(title);
    const events = await forkedEvents(this.history, fromEventId);
    const fork = await LocalConversation.create({
      agent: this.agent,
      workspace: this.workspace,
      history: this.history.limits,
      secrets: this.#core.secrets.copy(),
      // Confirmation mode carries over: a fork of a guarded conversation is guarded too.
      ...this.#core.confirmation.options,
      ...rest,
    });
    for (const event of events) fork.#core.writer.record(event);
    if (title !== undefined) fork.#core.title = title;
    await fork.#core.save();
    return fork;
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
    return this.#core.close();
  }

  /** Same as {@link LocalConversation.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Records a setting's new value as a state update, as OpenHands does for its state fields. */
  #recordSetting(key: 'confirmationPolicy' | 'securityAnalyzer', value: unknown): void {
    this.#core.record({
      kind: 'ConversationStateUpdateEvent',
      ...newEventBase(),
      source: 'environment',
      key: CONVERSATION_STATE_KEYS[key],
      value,
    });
  }
}
