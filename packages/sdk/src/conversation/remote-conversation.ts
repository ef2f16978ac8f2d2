import { invalidArgument, type Workspace } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  agentFinalResponseWireSchema,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  type ConversationStatsWire,
  conversationInfoWireSchema,
} from '@agent-workspace/protocol';
import type { LanguageModel } from '../llm/language-model.js';
import type { SecretsUpdate } from '../secrets/secret-source.js';
import type { ConfirmationPolicyInput } from '../security/confirmation-policy.js';
import type {
  BaseConversation,
  ConversationRunOptions,
  ConversationState,
} from './base-conversation.js';
import type { ConfirmationResponse } from './confirmation-control.js';
import type { ConversationEvents } from './conversation-events.js';
import type { AskAgentOptions, StreamingDeltaListener } from './conversation-llm-control.js';
import { fetchConversationInfo } from './fetch-conversation-info.js';
import { postConversationSecrets } from './post-conversation-secrets.js';
import {
  postConfirmationPolicy,
  postConfirmationResponse,
  postSecurityAnalyzer,
  startConfirmationFields,
} from './remote-confirmation.js';
import {
  type ForkRemoteConversationOptions,
  patchTitle,
  postCondense,
  postControl,
  postFork,
} from './remote-conversation-control.js';
import {
  type ConversationServer,
  closedOnFailure,
  conversationServerOf,
  expectOk,
} from './remote-conversation-http.js';
import { fetchConversationStats, postAskAgent, postSwitchLlm } from './remote-conversation-llm.js';
import type {
  AttachRemoteConversationOptions,
  RemoteConversationOptions,
  StartConversationBody,
} from './remote-conversation-options.js';
import { RemoteConversationSession } from './remote-conversation-session.js';

/** Re-exported: the SDK's index takes it from here. */
export { REMOTE_RUN_POLL_MAX_MS } from './remote-run-status.js';

/**
 * A conversation whose agent loop runs on the agent-server of its workspace, with the same API
 * as `LocalConversation`:
 *
 * - {@link RemoteConversation.create} starts one on the server (`POST /api/conversations` with
 *   the agent's JSON), {@link RemoteConversation.attach} joins an existing one by id.
 * - Events stream over `AGENT_SERVER_ROUTES.conversationEventsSocket` (first frame
 *   `{"type":"auth"}`) into {@link RemoteConversation.events}, deduplicated by id, in the
 *   server's order. A dropped
 *   socket reconnects with a capped backoff and fills the gap by paging
 *   `GET …/events/search`.
 * - {@link RemoteConversation.run} starts a run (`POST …/run`) and resolves when the status
 *   leaves `running`: woken by the socket's state updates (no timer is waited for), confirmed
 *   by one `GET …/events/search` page from the newest event held (the events the socket has not
 *   delivered yet, and the newest status event), falling back to
 *   `GET /api/conversations?ids={id}`; polled while the socket is down.
 * - `close()` closes the socket and ends the requests in flight (`WORKSPACE_CLOSED`); the
 *   conversation stays on the server.
 *
 * Failures are `WorkspaceError`s (`CONNECTION_ERROR`, `AUTHENTICATION_ERROR`, `NOT_FOUND`,
 * `INVALID_ARGUMENT`, `SERVER_ERROR`, `PROTOCOL_ERROR`, `WORKSPACE_CLOSED`, ...).
 */
export class RemoteConversation implements BaseConversation {
  /** Conversation id (a dashed UUID). */
  readonly id: string;
  readonly workspace: Workspace;
  /** The events, oldest first, with `subscribe()` for new ones. */
  readonly events: ConversationEvents;
  readonly #session: RemoteConversationSession;

  private constructor(session: RemoteConversationSession, workspace: Workspace) {
    this.id = session.id;
    this.workspace = workspace;
    this.events = session.events;
    this.#session = session;
  }

  /** Starts a conversation on the workspace's agent-server and connects to its events. */
  static async create(options: RemoteConversationOptions): Promise<RemoteConversation> {
    const { agent, workspace, conversationId, stuckDetection, signal } = options;
    const server = await conversationServerOf(workspace, signal);
    const body: StartConversationBody = {
      agent: agent.toConfig({ includeApiKey: true }),
      workspace: { kind: 'LocalWorkspace', working_dir: workspace.workingDir },
      max_iterations: options.maxIterations ?? agent.maxIterations,
    };
    if (conversationId !== undefined) body.conversation_id = conversationId;
    Object.assign(body, startConfirmationFields(options));
    if (stuckDetection !== undefined) body.stuck_detection = stuckDetection;
    const info = await closedOnFailure(server, () =>
      server.client.json(
        { method: 'POST', path: AGENT_SERVER_ROUTES.conversations, json: body, signal },
        conversationInfoWireSchema,
      ),
    );
    return RemoteConversation.#connect(server, info, workspace);
  }

  /** Joins a conversation that exists on the workspace's agent-server; `NOT_FOUND` if it does not. */
  static async attach(options: AttachRemoteConversationOptions): Promise<RemoteConversation> {
    const { workspace, conversationId, signal } = options;
    if (typeof conversationId !== 'string' || conversationId === '') {
      throw invalidArgument('conversationId', 'must be a non-empty string');
    }
    const server = await conversationServerOf(workspace, signal);
    const info = await closedOnFailure(server, () =>
      fetchConversationInfo(server.client, conversationId, signal),
    );
    return RemoteConversation.#connect(server, info, workspace);
  }

  static async #connect(
    server: ConversationServer,
    info: ConversationInfoWire,
    workspace: Workspace,
  ): Promise<RemoteConversation> {
    const session = new RemoteConversationSession(server, info);
    await session.connect();
    return new RemoteConversation(session, workspace);
  }

  /** The conversation's id and execution status, as last reported by the server. */
  get state(): ConversationState {
    return { id: this.id, executionStatus: this.#session.status };
  }

  /** Adds or replaces secrets on the server (`POST …/secrets`); as `LocalConversation`'s. */
  async updateSecrets(secrets: SecretsUpdate): Promise<void> {
    const { client, signal } = this.#session.control();
    const path = this.#session.path(AGENT_SERVER_ROUTES.conversationSecrets);
    await postConversationSecrets(client, path, secrets, signal);
  }

  /** Sends a user message (`POST …/events`); the current or next run reads it. */
  async sendMessage(text: string): Promise<void> {
    const { client, signal } = this.#session.control();
    if (typeof text !== 'string') throw invalidArgument('text', 'must be a string');
    await expectOk(client, {
      method: 'POST',
      path: this.#session.path(AGENT_SERVER_ROUTES.conversationEvents),
      json: { role: 'user', content: [{ type: 'text', text }], run: false },
      signal,
    });
  }

  /**
   * Starts a run on the server (`POST …/run`; one already going on is joined) and resolves to
   * the status it ended with (`finished`, `error`, `stuck`, `paused`, ...) once every event up
   * to then is in {@link RemoteConversation.events}. `signal` pauses the run.
   */
  async run({ signal }: ConversationRunOptions = {}): Promise<ConversationExecutionStatus> {
    return this.#session.run(signal);
  }

  /** Asks the server to pause the run (`POST …/pause`); it stops after the step in flight. */
  async pause(): Promise<void> {
    await this.#session.pause();
  }

  /**
   * Interrupts the run (`POST …/interrupt`): the server cancels the model call or tool in flight
   * at once and the status becomes `paused` (unlike `pause`, which lets the step finish).
   */
  async interrupt(): Promise<void> {
    await postControl(this.#session.control(), AGENT_SERVER_ROUTES.interruptConversation);
  }

  /**
   * Forces a condensation on the server (`POST …/condense`, as `LocalConversation.condense`):
   * `NOT_SUPPORTED` when the agent has no condenser that condenses on request or there is
   * nothing to forget.
   */
  async condense(): Promise<void> {
    await postCondense(this.#session.control());
  }

  /** Sets the confirmation policy on the server (`POST …/confirmation_policy`). */
  async setConfirmationPolicy(policy: ConfirmationPolicyInput): Promise<void> {
    await postConfirmationPolicy(this.#session.control(), policy);
  }

  /** Sets the server's security analyzer: `{ kind: 'PatternSecurityAnalyzer' }` or `null`. */
  async setSecurityAnalyzer(analyzer: { kind: string } | null): Promise<void> {
    await postSecurityAnalyzer(this.#session.control(), analyzer);
  }

  /**
   * Answers the actions waiting for confirmation (`POST …/events/respond_to_confirmation`), as
   * `LocalConversation.respondToConfirmation`: an acceptance makes the server run them and, unless
   * `run: false`, resolves once that run ends (as `run()`); a rejection resolves to the status.
   */
  async respondToConfirmation(
    response: ConfirmationResponse,
  ): Promise<ConversationExecutionStatus> {
    await postConfirmationResponse(this.#session.control(), response);
    if (response.accept && response.run !== false) return this.run({ signal: response.signal });
    const { client, closing } = this.#session;
    return (await fetchConversationInfo(client, this.id, closing)).execution_status;
  }

  /** Sets the title (`PATCH /api/conversations/{id}`, 1 to 200 characters). */
  async setTitle(title: string): Promise<void> {
    await patchTitle(this.#session.control(), title);
  }

  /**
   * Forks the conversation on its server (`POST …/fork`) and joins the fork: a new conversation
   * with this one's events up to `fromEventId` (default all), status `idle`.
   */
  async fork(options: ForkRemoteConversationOptions = {}): Promise<RemoteConversation> {
    const info = await postFork(this.#session.control(), options);
    return RemoteConversation.attach({ workspace: this.workspace, conversationId: info.id });
  }

  /** Token usage and cost per usage id, from the server (`GET /api/conversations/{id}`'s `stats`). */
  async stats(): Promise<ConversationStatsWire> {
    return fetchConversationStats(this.#session.llmTarget());
  }

  /** Runs the server's next model calls on `llm` (`POST …/switch_llm`; its key travels). */
  async switchLlm(llm: LanguageModel): Promise<void> {
    await postSwitchLlm(this.#session.llmTarget(), llm);
  }

  /** A side question answered by the server's agent (`POST …/ask_agent`); no events recorded. */
  async askAgent(question: string, options: AskAgentOptions = {}): Promise<string> {
    return postAskAgent(this.#session.llmTarget(options.signal), question);
  }

  /** Calls `listener` with each `StreamingDeltaEvent` the events socket brings (not in `events`). */
  subscribeStreamingDeltas(listener: StreamingDeltaListener): () => void {
    return this.#session.deltas.subscribe(listener);
  }

  /** The agent's last word as the server computes it (`GET …/agent_final_response`). */
  async agentFinalResponse(): Promise<string> {
    const { client, signal } = this.#session.control();
    const path = this.#session.path(AGENT_SERVER_ROUTES.agentFinalResponse);
    const reply = await client.json({ method: 'GET', path, signal }, agentFinalResponseWireSchema);
    return reply.response;
  }

  /**
   * Closes the events socket and the HTTP connections; requests in flight end with
   * `WORKSPACE_CLOSED`. The conversation stays on the server. Idempotent.
   */
  async close(): Promise<void> {
    await this.#session.close();
  }

  /** Same as {@link RemoteConversation.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** For tests: drops the events socket as a network failure would; it reconnects by itself. */
  dropEventsConnection(): void {
    this.#session.dropEventsConnection();
  }
}
