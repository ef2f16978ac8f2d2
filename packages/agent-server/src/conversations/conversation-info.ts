import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  formatWireTimestamp,
  type SendMessageRequestWire,
} from '@agent-workspace/protocol';
import { redactedAgent, redactedAgentConfig } from './agent-from-wire.js';
import { persistenceDirOf } from './conversation-directories.js';
import type { ConversationRecord, HeldConversation } from './conversation-record.js';

/** The wire info of a conversation with `status` and `agent` (already without its API key). */
function conversationInfo(
  record: ConversationRecord,
  status: ConversationExecutionStatus,
  agent: Record<string, unknown>,
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
  };
}

/** The conversation's status, live while it is loaded. */
export function conversationStatus(record: ConversationRecord): ConversationExecutionStatus {
  return record.loaded?.conversation.state.executionStatus ?? record.status;
}

/** The info of a conversation, loaded or not: the agent's JSON without an API key. */
export async function describeConversation(
  record: ConversationRecord,
): Promise<ConversationInfoWire> {
  if (record.loaded !== undefined) return heldConversationInfo(record.loaded);
  return conversationInfo(record, conversationStatus(record), await persistedAgent(record));
}

/** The info of a loaded conversation. */
export function heldConversationInfo(held: HeldConversation): ConversationInfoWire {
  const { record } = held;
  return conversationInfo(
    record,
    conversationStatus(record),
    redactedAgent(held.conversation.agent),
  );
}

/** A `ConversationStateUpdateEvent` with `key: "full_state"` carrying the conversation's info. */
export function fullState(held: HeldConversation): ConversationEventWire {
  return fullStateEvent(heldConversationInfo(held));
}

/** The persisted agent of a conversation that is not loaded, without its API key. */
async function persistedAgent(record: ConversationRecord): Promise<Record<string, unknown>> {
  if (record.dir === undefined) return {};
  const { LocalConversation } = await import('@agent-workspace/sdk');
  const persisted = await LocalConversation.inspect(persistenceDirOf(record.dir))
    .then((summary) => summary.agent)
    .catch(() => null); // deleted meanwhile
  return redactedAgentConfig(persisted);
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
