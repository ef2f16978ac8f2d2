import { WorkspaceError } from '@agent-workspace/core';
import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  conversationPath,
} from '@agent-workspace/protocol';
import type { ConversationEvents } from './conversation-events.js';
import { fetchConversationEvents } from './fetch-conversation-events.js';
import { fetchConversationStatus } from './fetch-conversation-info.js';
import { postControl, type RemoteControlTarget } from './remote-conversation-control.js';
import { type ConversationServer, expectOk } from './remote-conversation-http.js';
import { type RemoteLLMTarget, RemoteStreamingDeltas } from './remote-conversation-llm.js';
import { RemoteEventFeed } from './remote-event-feed.js';
import { RemoteEventsSocket } from './remote-events-socket.js';
import { RemoteRunStatus } from './remote-run-status.js';

/**
 * The connection of a `RemoteConversation` to its agent-server: the HTTP client, the events
 * socket and feed, the run status, and closing; internal: `RemoteConversation` delegates to it.
 */
export class RemoteConversationSession {
  readonly id: string;
  readonly client: AgentServerClient;
  /** The events, oldest first, fed by the socket and paged in. */
  readonly events: ConversationEvents;
  readonly deltas = new RemoteStreamingDeltas();
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason; every request listens to it. */
  readonly #closing = new AbortController();
  readonly #socket: RemoteEventsSocket;
  readonly #status: RemoteRunStatus;
  readonly #feed: RemoteEventFeed;
  #running = false;
  #closed = false;

  constructor({ client, apiKey }: ConversationServer, info: ConversationInfoWire) {
    this.id = info.id;
    this.client = client;
    this.#status = new RemoteRunStatus(info.execution_status);
    this.#feed = new RemoteEventFeed({
      fetchEvents: (fromId) =>
        fetchConversationEvents(client, this.id, this.#closing.signal, fromId),
      status: this.#status,
    });
    this.events = this.#feed.events;
    this.#socket = new RemoteEventsSocket({
      url: client.websocketUrl(
        conversationPath(AGENT_SERVER_ROUTES.conversationEventsSocket, this.id),
      ),
      host: client.host,
      apiKey,
      onFrame: (frame) => {
        this.deltas.onFrame(frame);
        this.#feed.onFrame(frame);
      },
      onReconnected: () => {
        this.#status.reconnected();
        void this.#feed.sync().catch(() => {
          // The next reconnect or run() check fills the gap.
        });
      },
      onFatal: (error) => this.#status.fail(error),
    });
  }

  /** Fires once the conversation is closed (a `WORKSPACE_CLOSED` reason). */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** The execution status as last reported by the server. */
  get status(): ConversationExecutionStatus {
    return this.#status.current;
  }

  /** Opens the events socket and pages the history in; closes everything if that fails. */
  async connect(): Promise<void> {
    try {
      // Live events that arrive while the history is paged in are held back, then appended.
      this.#feed.hold();
      await this.#socket.start();
      await this.#feed.sync();
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** `RemoteConversation.run`: starts (or joins) a run and waits for its end status. */
  async run(signal: AbortSignal | undefined): Promise<ConversationExecutionStatus> {
    this.assertOpen();
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
      // Settled statuses the socket reports from here on may be this run's end.
      const since = this.#status.mark();
      // 409: a run is going on already; wait for it like for our own.
      await expectOk(
        this.client,
        {
          method: 'POST',
          path: this.path(AGENT_SERVER_ROUTES.runConversation),
          signal: this.#closing.signal,
        },
        409,
      );
      if (signal?.aborted) onAbort();
      let caughtUp = false;
      const status = await this.#status.waitUntilNotRunning({
        // The page of events the socket has not delivered yet (usually none) also tells the
        // status; REST is asked only when that says `running` (a stale wake-up, or a status the
        // server set without an event: a run it found cut short when it restarted).
        fetchStatus: async () => {
          const recorded = await this.#feed.catchUp();
          caughtUp = recorded !== undefined && recorded !== 'running';
          if (recorded !== undefined && recorded !== 'running') return recorded;
          return fetchConversationStatus(this.client, this.id, this.#closing.signal);
        },
        assertOpen: () => this.assertOpen(),
        since,
        socketConnected: () => this.#socket.connected,
      });
      // A run end the socket told over one connection came after every event of the run.
      const told = this.#status.endedOverSocket(since) !== undefined;
      if (!caughtUp && !(told && (await this.#feed.complete()))) await this.#feed.catchUp();
      return status;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#running = false;
    }
  }

  /** `POST …/pause` (`RemoteConversation.pause`). */
  async pause(): Promise<void> {
    await postControl(this.control(), AGENT_SERVER_ROUTES.pauseConversation);
  }

  /** Closes the socket and the HTTP connections; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(this.#closedError());
    this.#socket.close();
    this.#status.close();
    await this.client.close();
  }

  /** Drops the events socket as a network failure would (for tests). */
  dropEventsConnection(): void {
    this.#socket.dropConnection();
  }

  /** Where control requests go; `WORKSPACE_CLOSED` once closed. */
  control(): RemoteControlTarget {
    this.assertOpen();
    return { client: this.client, conversationId: this.id, signal: this.#closing.signal };
  }

  /** Where model-control requests go, also cancelled by `signal`; `WORKSPACE_CLOSED` once closed. */
  llmTarget(signal?: AbortSignal): RemoteLLMTarget {
    this.assertOpen();
    const closing = this.#closing.signal;
    return {
      client: this.client,
      conversationId: this.id,
      signal: signal === undefined ? closing : AbortSignal.any([closing, signal]),
    };
  }

  /** `route` with this conversation's id. */
  path(route: string): string {
    return conversationPath(route, this.id);
  }

  /** @throws WorkspaceError `WORKSPACE_CLOSED` once `close()` was called. */
  assertOpen(): void {
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
