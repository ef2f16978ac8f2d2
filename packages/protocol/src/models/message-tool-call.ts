import { z } from 'zod';

/**
 * Wire shape of OpenHands' `MessageToolCall`: one tool call of an assistant message, with its
 * arguments as the model wrote them (JSON text, possibly malformed).
 */
export const messageToolCallWireSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  /** Which provider API produced the call; OpenHands' default is `completion`. */
  origin: z.enum(['completion', 'responses']).default('completion'),
});

/** Wire JSON of a tool call. */
export type MessageToolCallWire = z.infer<typeof messageToolCallWireSchema>;
