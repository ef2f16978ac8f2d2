import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/**
 * Wire shape of OpenHands' `StreamingDeltaEvent`: a piece of the model's answer (`content`) or
 * of its reasoning (`reasoning_content`) as it streams in. Transient, as in OpenHands: sent to
 * the events socket's subscribers as it arrives, never recorded in the conversation's events
 * (a client that connects mid-answer gets the final `MessageEvent` / `ActionEvent` instead), so
 * it is not one of `conversationEventWireSchema`'s kinds.
 */
export const streamingDeltaEventWireSchema = z.looseObject({
  kind: z.literal('StreamingDeltaEvent'),
  ...conversationEventBaseShape('agent'),
  content: z.string().nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
});

/** Wire JSON of a streamed delta. */
export type StreamingDeltaEventWire = z.infer<typeof streamingDeltaEventWireSchema>;
