import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  type ConversationEventWire,
  MAX_CONVERSATION_TITLE_LENGTH,
} from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';
import type { CondenserResponseListener } from '../condenser/condenser.js';
import { condensationFor } from '../condenser/condenser-from-config.js';
import { newEventBase } from '../events/new-event-base.js';
import type { ConversationHistory } from './conversation-history.js';
import type { LocalConversationOptions } from './local-conversation-options.js';

/** How a run is being stopped: `pause` between steps, `interrupt` at once. */
export type HaltMode = 'pause' | 'interrupt';

/** Options of `LocalConversation.fork`. */
export interface ForkLocalConversationOptions
  extends Partial<Omit<LocalConversationOptions, 'conversationId'>> {
  /** The fork's id (a dashed UUID); default a random one. */
  conversationId?: string | undefined;
  /**
   * The last event the fork copies (it and every event before it); default all. `NOT_FOUND`
   * when the conversation has no such event.
   */
  fromEventId?: string | undefined;
  /** The fork's title (1 to 200 characters); default none. */
  title?: string | undefined;
}

/** Options of `LocalConversation.condense`. */
export interface CondenseOptions {
  /** Cancels the summarising model call. */
  signal?: AbortSignal | undefined;
}

/** A title checked: a string of 1 to {@link MAX_CONVERSATION_TITLE_LENGTH} characters. */
export function checkedTitle(title: unknown, field = 'title'): string {
  if (
    typeof title !== 'string' ||
    title.length < 1 ||
    title.length > MAX_CONVERSATION_TITLE_LENGTH
  ) {
    throw invalidArgument(
      field,
      `must be a string of 1 to ${MAX_CONVERSATION_TITLE_LENGTH} characters`,
    );
  }
  return title;
}

/**
 * Forces a condensation, as OpenHands' `condense()`: records a `CondensationRequest`, then, when
 * no run is going on, asks the agent's condenser for the `Condensation` at once and records it
 * (during a run, the run's next step answers the request).
 * @throws WorkspaceError `NOT_SUPPORTED` when the agent has no condenser that takes requests
 * (`details.reason: 'no_condenser'`) or there is nothing to forget (`'nothing_to_condense'`).
 */
export async function condenseHistory(options: {
  agent: Agent;
  events: readonly ConversationEventWire[];
  record: (event: ConversationEventWire) => void;
  running: boolean;
  signal?: AbortSignal | undefined;
  /** Told each response of the condenser's summarising model (for the stats). */
  onLLMResponse?: CondenserResponseListener | undefined;
}): Promise<void> {
  const { condenser } = options.agent;
  if (condenser === undefined || !condenser.handlesRequests) {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message:
        condenser === undefined
          ? 'cannot condense: the agent has no condenser (give it a RollingWindowCondenser or an LLMSummarizingCondenser)'
          : `cannot condense: ${condenser.kind} does not condense on request`,
      details: { reason: 'no_condenser', condenser: condenser?.kind ?? null },
    });
  }
  const request: ConversationEventWire = {
    kind: 'CondensationRequest',
    ...newEventBase(),
    source: 'environment',
  };
  if (options.running) {
    options.record(request);
    return;
  }
  // Computed before anything is recorded, so a refusal leaves no dangling request.
  const condensation = await condensationFor(condenser, [...options.events, request], {
    signal: options.signal,
    onLLMResponse: options.onLLMResponse,
  });
  if (condensation === undefined) return;
  options.record(request);
  options.record(condensation);
}

/**
 * The events a fork copies: every kept event, oldest first, up to and including `fromEventId`.
 * @throws WorkspaceError `NOT_FOUND` (field `fromEventId`) for an event the history does not hold.
 */
export async function forkedEvents(
  history: ConversationHistory,
  fromEventId: string | undefined,
): Promise<ConversationEventWire[]> {
  const events: ConversationEventWire[] = [];
  for await (const { event } of history.read()) {
    events.push(event);
    if (fromEventId !== undefined && event.id === fromEventId) return events;
  }
  if (fromEventId === undefined) return events;
  throw new WorkspaceError({
    code: 'NOT_FOUND',
    message: `fromEventId: the conversation has no event ${JSON.stringify(fromEventId)}`,
    details: { field: 'fromEventId' },
  });
}
