import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  SOCKET_CLOSE_CODES,
} from '@agent-workspace/protocol/constants';
import type { AgentServerClient } from '../api/agent-server-client.js';
import type { StreamedEvent } from './conversation-timeline.js';

/** Ids of received events remembered to drop a replayed one; the oldest are forgotten past it. */
export const MAX_REMEMBERED_EVENT_IDS = 50_000;

/** Where the events socket is. */
export type EventsSocketState =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'open' }
  /** Dropped; the next attempt is in `delayMs`. */
  | { readonly kind: 'reconnecting'; readonly attempt: number; readonly delayMs: number }
  /** Refused for good (4001: key refused, 4004: no such conversation); not retried. */
  | { readonly kind: 'failed'; readonly code: number; readonly message: string }
  | { readonly kind: 'closed' };

/** Options of {@link ConversationEventsSocket}. */
export interface ConversationEventsSocketOptions {
  /** Opens the socket (and authenticates it with the first frame). */
  readonly client: Pick<AgentServerClient, 'socket'>;
  readonly conversationId: string;
  /** Each event not received before, in the order received. */
  onEvent(event: StreamedEvent): void;
  /** Each change of the connection's state. */
  onState?(state: EventsSocketState): void;
  /** First reconnect delay in ms, doubled per failed attempt; default 500. */
  readonly initialDelayMs?: number;
  /** Longest reconnect delay in ms; default 15 000. */
  readonly maxDelayMs?: number;
}

/**
 * The events socket of one conversation (`AGENT_SERVER_ROUTES.conversationEventsSocket`) that
 * survives drops: it connects with `resend_mode=all`; after a drop it reconnects with
 * exponential backoff asking for the events since the last recorded one it received
 * (`resend_mode=since`, `after_timestamp`), and drops those it already has (by `id`), so no event comes twice.
 * Close codes 4001 (authentication failed) and 4004 (conversation not found) end it.
 */
export class ConversationEventsSocket {
  readonly #options: ConversationEventsSocketOptions;
  readonly #seen = new Set<string>();
  #socket: WebSocket | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastTimestamp: string | undefined;
  #attempt = 0;
  #closed = false;

  constructor(options: ConversationEventsSocketOptions) {
    this.#options = options;
    this.#connect();
  }

  /** Closes the socket for good; no reconnect, no more callbacks. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#socket?.close(1000, 'Closed by the page');
    this.#socket = null;
    this.#options.onState?.({ kind: 'closed' });
  }

  #connect(): void {
    const path = conversationPath(
      AGENT_SERVER_ROUTES.conversationEventsSocket,
      this.#options.conversationId,
    );
    const query =
      this.#lastTimestamp === undefined
        ? { resend_mode: 'all' }
        : { resend_mode: 'since', after_timestamp: this.#lastTimestamp };
    const socket = this.#options.client.socket(path, query);
    this.#socket = socket;
    this.#options.onState?.({ kind: 'connecting' });
    socket.addEventListener('open', () => {
      if (this.#socket === socket) this.#options.onState?.({ kind: 'open' });
    });
    socket.addEventListener('message', (message: MessageEvent) => {
      if (this.#socket !== socket) return;
      this.#attempt = 0;
      this.#receive(message.data);
    });
    socket.addEventListener('close', (event: CloseEvent) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#dropped(event.code, event.reason);
    });
  }

  #receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let event: StreamedEvent;
    try {
      event = JSON.parse(data) as StreamedEvent;
    } catch {
      return; // Not an event: nothing to show.
    }
    if (typeof event !== 'object' || event === null || typeof event.kind !== 'string') return;
    if (event.kind !== 'StreamingDeltaEvent') {
      if (typeof event.id !== 'string' || this.#seen.has(event.id)) return;
      this.#remember(event.id);
      if (isRecorded(event)) this.#lastTimestamp = event.timestamp;
    }
    this.#options.onEvent(event);
  }

  #remember(id: string): void {
    this.#seen.add(id);
    if (this.#seen.size <= MAX_REMEMBERED_EVENT_IDS) return;
    for (const old of this.#seen) {
      this.#seen.delete(old);
      break;
    }
  }

  #dropped(code: number, reason: string): void {
    if (this.#closed) return;
    if (code === SOCKET_CLOSE_CODES.authenticationFailed) {
      this.#fail(code, `The server refused the session key (${reason || code}).`);
      return;
    }
    if (code === SOCKET_CLOSE_CODES.conversationNotFound) {
      this.#fail(code, 'The server has no such conversation.');
      return;
    }
    const initial = this.#options.initialDelayMs ?? 500;
    const delayMs = Math.min(this.#options.maxDelayMs ?? 15_000, initial * 2 ** this.#attempt);
    this.#attempt++;
    this.#options.onState?.({ kind: 'reconnecting', attempt: this.#attempt, delayMs });
    this.#timer = setTimeout(() => this.#connect(), delayMs);
  }

  #fail(code: number, message: string): void {
    this.#closed = true;
    this.#options.onState?.({ kind: 'failed', code, message });
  }
}

/**
 * Whether an event is in the conversation's history, so its timestamp can resume a replay:
 * not a delta, a server error, or a `full_state` snapshot (stamped when sent).
 */
function isRecorded(event: StreamedEvent): boolean {
  if (event.kind === 'StreamingDeltaEvent' || event.kind === 'ServerErrorEvent') return false;
  return !(event.kind === 'ConversationStateUpdateEvent' && event.key === 'full_state');
}
