import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  type ConversationStatsWire,
  formatWireTimestamp,
  type SendMessageRequestWire,
} from '@agent-workspace/protocol';
import type { ConfirmationSettings } from '@agent-workspace/sdk';
import { redactedAgent, redactedAgentConfig } from './agent-from-wire.js';
import { confirmationInfo } from './confirmation-info.js';
import { persistenceDirOf } from './conversation-directories.js';
import type { ConversationRecord, HeldConversation } from './conversation-record.js';

/** The wire info of a conversation with `status`, `agent` (already without its API key), `stats`. */
function conversationInfo(
  record: ConversationRecord,
  status: ConversationExecutionStatus,
  agent: Record<string, unknown>,
  stats: ConversationStatsWire,
): ConversationInfoWire {
  const { meta } = record;
  return {
    id: meta.id,
    workspace: meta.workspace,
    agent,
    execution_status: status,
    title: meta.title,
    created_at: meta.created_at,
    updated_at: record.updatedAt,
    max_iterations: meta.max_iterations,
    stuck_detection: meta.stuck_detection,
    tags: meta.tags,
    persistence_dir: record.dir ?? null,
    forked_from_conversation_id: meta.forked_from_conversation_id ?? null,
    forked_from_event_id: meta.forked_from_event_id ?? null,
    stats,
  };
}

/** The conversation's status, live while it is loaded. */
export function conversationStatus(record: ConversationRecord): ConversationExecutionStatus {
  return record.loaded?.conversation.state.executionStatus ?? record.status;
}

/** Options of {@link describeConversation}. */
export interface DescribeConversationOptions {
  /**
   * Give `stats` with their per-call records (default true: `GET /{id}`); lists of many
   * conversations give the totals only, to keep their pages small.
   */
  statsRecords?: boolean | undefined;
}

/** The info of a conversation, loaded or not: the agent's JSON without an API key. */
export async function describeConversation(
  record: ConversationRecord,
  { statsRecords = true }: DescribeConversationOptions = {},
): Promise<ConversationInfoWire> {
  if (record.loaded !== undefined) return heldConversationInfo(record.loaded, { statsRecords });
  const { agent, stats: persisted, confirmation } = await persistedState(record);
  const stats = statsRecords ? persisted : withoutRecords(persisted);
  return {
    ...conversationInfo(record, conversationStatus(record), agent, stats),
    ...confirmationInfo(confirmation),
  };
}

/** The info of a loaded conversation (`statsRecords` as in {@link describeConversation}). */
export function heldConversationInfo(
  held: HeldConversation,
  { statsRecords = true }: DescribeConversationOptions = {},
): ConversationInfoWire {
  const { record } = held;
  return {
    ...conversationInfo(
      record,
      conversationStatus(record),
      redactedAgent(held.conversation.agent),
      held.conversation.stats({ records: statsRecords }),
    ),
    ...confirmationInfo(held.conversation.confirmation),
  };
}

/** A `ConversationStateUpdateEvent` with `key: "full_state"` carrying the conversation's info. */
export function fullState(held: HeldConversation): ConversationEventWire {
  // Stats as snapshots (no per-call records), as OpenHands sends them over the socket.
  return fullStateEvent(heldConversationInfo(held, { statsRecords: false }));
}

/** The persisted agent (no API key), stats and confirmation settings of an unloaded one. */
async function persistedState(record: ConversationRecord): Promise<{
  agent: Record<string, unknown>;
  stats: ConversationStatsWire;
  confirmation: ConfirmationSettings | undefined;
}> {
  const none: ConversationStatsWire = { usage_to_metrics: {} };
  if (record.dir === undefined) return { agent: {}, stats: none, confirmation: undefined };
  const { LocalConversation } = await import('@agent-workspace/sdk');
  const persisted = await LocalConversation.inspect(persistenceDirOf(record.dir)).catch(
    () => undefined, // deleted meanwhile
  );
  return {
    agent: redactedAgentConfig(persisted?.agent ?? null),
    stats: persisted?.stats ?? none,
    confirmation: persisted?.confirmation,
  };
}

/** `stats` with their totals only: the per-call record lists are emptied. */
function withoutRecords(stats: ConversationStatsWire): ConversationStatsWire {
  const entries = Object.entries(stats.usage_to_metrics).map(([key, metrics]) => [
    key,
    { ...metrics, costs: [], response_latencies: [], token_usages: [] },
  ]);
  return { ...stats, usage_to_metrics: Object.fromEntries(entries) };
}

/** A `ConversationStateUpdateEvent` with `key: "full_state"` carrying `info`. */
function fullStateEvent(info: ConversationInfoWire): ConversationEventWire {
  return {
    kind: 'ConversationStateUpdateEvent',
    id: crypto.randomUUID(),
    timestamp: formatWireTimestamp(new Date()),
    source: 'environment',
    key: CONVERSATION_STATE_KEYS.fullState,
    value: info,
  } as ConversationEventWire;
}

/** The text parts of a user message, joined by newlines (image parts do not reach the agent). */
export function messageText(message: SendMessageRequestWire): string {
  return message.content
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}
