import { invalidArgument, type Workspace, WorkspaceError } from '@agent-workspace/core';
import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  agentFinalResponseWireSchema,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  conversationInfoWireSchema,
  conversationPath,
} from '@agent-workspace/protocol';
import type {
  BaseConversation,
  ConversationRunOptions,
  ConversationState,
} from './base-conversation.js';
import type { ConversationEvents } from './conversation-events.js';
import { fetchConversationEvents } from './fetch-conversation-events.js';
import { fetchConversationInfo } from './fetch-conversation-info.js';
import {
  type ConversationServer,
  closedOnFailure,
  conversationServerOf,
  expectOk,
} from './remote-conversation-http.js';
import type {
  AttachRemoteConversationOptions,
  RemoteConversationOptions,
  StartConversationBody,
} from './remote-conversation-options.js';
import { RemoteEventFeed } from './remote-event-feed.js';
import { RemoteEventsSocket } from './remote-events-socket.js';
import { RemoteRunStatus } from './remote-run-status.js';

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
 *   leaves `running`: woken by the socket's state updates, confirmed (and, without a socket,
 *   polled) with `GET /api/conversations/{id}`.
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
  readonly #client: AgentServerClient;
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason; every request listens to it. */
  readonly #closing = new AbortController();
  readonly #socket: RemoteEventsSocket;
  readonly #status: RemoteRunStatus;
  readonly #feed: RemoteEventFeed;
  #running = false;
  #closed = false;

  private constructor(
    { client, apiKey }: ConversationServer,
    info: ConversationInfoWire,
    workspace: Workspace,
  ) {
    this.id = info.id;
    this.workspace = workspace;
    this.#client = client;
    this.#status = new RemoteRunStatus(info.execution_status);
    this.#feed = new RemoteEventFeed({
      fetchEvents: () => fetchConversationEvents(client, this.id, this.#closing.signal),
      status: this.#status,
    });
    this.events = this.#feed.events;
    this.#socket = new RemoteEventsSocket({
      url: client.websocketUrl(
        conversationPath(AGENT_SERVER_ROUTES.conversationEventsSocket, this.id),
      ),
      host: client.host,
      apiKey,
      onFrame: (frame) => this.#feed.onFrame(frame),
      onReconnected: () => {
        void this.#feed.sync().catch(() => {
          // The next reconnect or run() check fills the gap.
        });
      },
      onFatal: (error) => this.#status.fail(error),
    });
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
    const conversation = new RemoteConversation(server, info, workspace);
    try {
      // Live events that arrive while the history is paged in are held back, then appended.
      conversation.#feed.hold();
      await conversation.#socket.start();
      await conversation.#feed.sync();
    } catch (error) {
      await conversation.close();
      throw error;
    }
    return conversation;
  }

  /** The conversation's id and execution status, as last reported by the server. */
  get state(): ConversationState {
    return { id: this.id, executionStatus: this.#status.current };
  }

  /** Sends a user message (`POST …/events`); the current or next run reads it. */
  async sendMessage(text: string): Promise<void> {
    this.#assertOpen();
    if (typeof text !== 'string') throw invalidArgument('text', 'must be a string');
    await expectOk(this.#client, {
      method: 'POST',
      path: this.#path(AGENT_SERVER_ROUTES.conversationEvents),
      json: { role: 'user', content: [{ type: 'text', text }], run: false },
      signal: this.#closing.signal,
    });
  }

  /**
   * Starts a run on the server (`POST …/run`; one already going on is joined) and resolves to
   * the status it ended with (`finished`, `error`, `stuck`, `paused`, ...) once every event up
   * to then is in {@link RemoteConversation.events}. `signal` pauses the run.
   */
  async run({ signal }: ConversationRunOptions = {}): Promise<ConversationExecutionStatus> {
    this.#assertOpen();
    if (this.#running) {
      throw new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message:
          'the conversation is already running: wait for run() to resolve, or pause() it first',
        details: { conversationId: this.id },
      });
    }
    this.#running = true;
    const onAbort = (): void => {
      void this.pause().catch(() => {});
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // 409: a run is going on already; wait for it like for our own.
      await expectOk(
        this.#client,
        {
          method: 'POST',
          path: this.#path(AGENT_SERVER_ROUTES.runConversation),
          signal: this.#closing.signal,
        },
        409,
      );
      if (signal?.aborted) onAbort();
      const status = await this.#status.waitUntilNotRunning({
        fetchStatus: async () =>
          (await fetchConversationInfo(this.#client, this.id, this.#closing.signal))
            .execution_status,
        assertOpen: () => this.#assertOpen(),
      });
      await this.#feed.sync();
      return status;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#running = false;
    }
  }

  /** Asks the server to pause the run (`POST …/pause`); it stops after the step in flight. */
  async pause(): Promise<void> {
    this.#assertOpen();
    await expectOk(this.#client, {
      method: 'POST',
      path: this.#path(AGENT_SERVER_ROUTES.pauseConversation),
      signal: this.#closing.signal,
    });
  }

  /** The agent's last word as the server computes it (`GET …/agent_final_response`). */
  async agentFinalResponse(): Promise<string> {
    this.#assertOpen();
    const reply = await this.#client.json(
      {
        method: 'GET',
        path: this.#path(AGENT_SERVER_ROUTES.agentFinalResponse),
        signal: this.#closing.signal,
      },
      agentFinalResponseWireSchema,
    );
    return reply.response;
  }

  /**
   * Closes the events socket and the HTTP connections; requests in flight end with
   * `WORKSPACE_CLOSED`. The conversation stays on the server. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(this.#closedError());
    this.#socket.close();
    this.#status.close();
    await this.#client.close();
  }

  /** Same as {@link RemoteConversation.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** For tests: drops the events socket as a network failure would; it reconnects by itself. */
  dropEventsConnection(): void {
    this.#socket.dropConnection();
  }

  #path(route: string): string {
    return conversationPath(route, this.id);
  }

  #assertOpen(): void {
    if (this.#closed) throw this.#closedError();
  }

  #closedError(): WorkspaceError {
    return new WorkspaceError({
      code: 'WORKSPACE_CLOSED',
      message: 'the conversation is closed',
      details: { conversationId: this.id },
    });
  }
}
