import {
  CONVERSATION_EXECUTION_STATUSES,
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type ConversationExecutionStatus,
} from '@agent-workspace/protocol';

const STATUSES = new Set<string>(CONVERSATION_EXECUTION_STATUSES);

/** The execution status a state update carries, if any. */
export function executionStatusOf(
  event: Extract<ConversationEventWire, { kind: 'ConversationStateUpdateEvent' }>,
): ConversationExecutionStatus | undefined {
  const value =
    event.key === CONVERSATION_STATE_KEYS.executionStatus
      ? event.value
      : event.key === CONVERSATION_STATE_KEYS.fullState &&
          typeof event.value === 'object' &&
          event.value !== null
        ? (event.value as { execution_status?: unknown }).execution_status
        : undefined;
  return typeof value === 'string' && STATUSES.has(value)
    ? (value as ConversationExecutionStatus)
    : undefined;
}
