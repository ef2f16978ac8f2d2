import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/**
 * Keys of `ConversationStateUpdateEvent`: `execution_status` carries the new status string,
 * `full_state` a snapshot of the whole state, `stats` the usage
 * and cost (`ConversationStatsSnapshotWire`).
 */
export const CONVERSATION_STATE_KEYS = {
  executionStatus: 'execution_status',
  fullState: 'full_state',
  /** The conversation's token usage and cost per usage id, after each model response. */
  stats: 'stats',
  /** The agent's JSON (without API keys), after `switch_llm` changed its model. */
  agent: 'agent',
  /** The confirmation policy, after it was set. */
  confirmationPolicy: 'confirmation_policy',
  /** The security analyzer (`{ kind }` or `null`), after it was set. */
  securityAnalyzer: 'security_analyzer',
} as const;

/**
 * Wire shape of OpenHands' `ConversationStateUpdateEvent`: one field of the conversation's state
 * changed (`key`, see {@link CONVERSATION_STATE_KEYS}) to `value`.
 */
export const conversationStateUpdateEventWireSchema = z.looseObject({
  kind: z.literal('ConversationStateUpdateEvent'),
  ...conversationEventBaseShape('environment'),
  key: z.string().min(1),
  value: z.unknown(),
});

/** Wire JSON of a state update event. */
export type ConversationStateUpdateEventWire = z.infer<
  typeof conversationStateUpdateEventWireSchema
>;
