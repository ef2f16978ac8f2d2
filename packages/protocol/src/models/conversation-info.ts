import { z } from 'zod';
import { CONVERSATION_EXECUTION_STATUSES } from './conversation-execution-status.js';
import { conversationStatsWireSchema } from './conversation-stats.js';

/**
 * Wire shape of OpenHands' `ConversationInfo` (the fields this server fills): the agent's JSON
 * never carries an API key (`llm.api_key` is removed).
 */
export const conversationInfoWireSchema = z.looseObject({
  id: z.string(),
  workspace: z.looseObject({ working_dir: z.string() }),
  agent: z.looseObject({}),
  execution_status: z.enum(CONVERSATION_EXECUTION_STATUSES),
  title: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  max_iterations: z.number().int(),
  stuck_detection: z.boolean(),
  tags: z.record(z.string(), z.string()),
  persistence_dir: z.string().nullable().optional(),
  /** The confirmation policy (`{"kind": "NeverConfirm"}` unless one was set). */
  confirmation_policy: z.looseObject({ kind: z.string() }).optional(),
  /** The security analyzer rating actions, `null` for none. */
  security_analyzer: z.looseObject({ kind: z.string() }).nullable().optional(),
  /** Token usage and cost per usage id (OpenHands' `ConversationStats`). */
  stats: conversationStatsWireSchema.optional(),
  /** The conversation this one was forked from (`POST …/fork`), if it was. */
  forked_from_conversation_id: z.string().nullable().optional(),
  /** The last event the fork copied, when the fork asked for one. */
  forked_from_event_id: z.string().nullable().optional(),
});

/** Wire JSON of a conversation's info. */
export type ConversationInfoWire = z.infer<typeof conversationInfoWireSchema>;

/** Wire shape of a page of `GET /api/conversations/search`. */
export const conversationPageWireSchema = z.object({
  items: z.array(conversationInfoWireSchema),
  next_page_id: z.string().nullable(),
});

/** Wire JSON of a conversation page. */
export type ConversationPageWire = z.infer<typeof conversationPageWireSchema>;

/** Wire shape of `PATCH /api/conversations/{id}`. */
export const updateConversationRequestWireSchema = z.looseObject({
  title: z.string().min(1).max(200).optional(),
  tags: z.record(z.string(), z.string().max(256)).optional(),
});

/** Wire JSON of an update request. */
export type UpdateConversationRequestWire = z.infer<typeof updateConversationRequestWireSchema>;

/** Wire shape of `GET /api/conversations/{id}/agent_final_response`. */
export const agentFinalResponseWireSchema = z.object({ response: z.string() });
