import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';
import { llmMessageWireSchema } from './llm-message.js';

/**
 * Wire shape of OpenHands' `MessageEvent`: a message of the user, or a text answer of the agent
 * (then `llm_response_id` names the model's response). Loose: OpenHands adds fields such as
 * `activated_skills` and `extended_content`, kept verbatim.
 */
export const messageEventWireSchema = z.looseObject({
  kind: z.literal('MessageEvent'),
  ...conversationEventBaseShape('user'),
  llm_message: llmMessageWireSchema,
  llm_response_id: z.string().nullish(),
});

/** Wire JSON of a message event. */
export type MessageEventWire = z.infer<typeof messageEventWireSchema>;
