import { z } from 'zod';
import { imageContentWireSchema } from './image-content.js';
import { messageToolCallWireSchema } from './message-tool-call.js';
import { textContentWireSchema } from './text-content.js';

/**
 * Wire shape of OpenHands' `Message` (the `llm_message` of a `MessageEvent`, and the body of
 * `POST /api/conversations/{id}/events`): a role and content parts, plus the tool calls of an
 * assistant message. Loose: reasoning fields and the like are kept verbatim.
 */
export const llmMessageWireSchema = z.looseObject({
  role: z.enum(['user', 'system', 'assistant', 'tool']),
  content: z.array(z.union([textContentWireSchema, imageContentWireSchema])).default([]),
  tool_calls: z.array(messageToolCallWireSchema).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
});

/** Wire JSON of a message. */
export type LLMMessageWire = z.infer<typeof llmMessageWireSchema>;
