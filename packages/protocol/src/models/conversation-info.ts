import { z } from 'zod';
import { CONVERSATION_EXECUTION_STATUSES } from './conversation-execution-status.js';

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
