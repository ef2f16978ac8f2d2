/**
 * OpenHands' `ConversationExecutionStatus` values. `finished`, `error` and `stuck` end a run;
 * `paused` and `idle` wait for the next one. (A list, not a wire model: a part of the
 * `execution_status` state update and of conversation info.)
 */
export const CONVERSATION_EXECUTION_STATUSES = [
  'idle',
  'running',
  'paused',
  'waiting_for_confirmation',
  'finished',
  'error',
  'stuck',
  'deleting',
] as const;

/** Where a conversation stands. */
export type ConversationExecutionStatus = (typeof CONVERSATION_EXECUTION_STATUSES)[number];
