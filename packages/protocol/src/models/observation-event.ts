import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';
import { imageContentWireSchema } from './image-content.js';
import { textContentWireSchema } from './text-content.js';

/**
 * A tool's result: `kind` names it the OpenHands way (`TerminalObservation`, ...), `content` is
 * what the model is shown, `is_error` says whether the call failed; tool-specific fields
 * (`exit_code`, `path`, ...) are kept verbatim.
 */
const observationPayloadSchema = z.looseObject({
  kind: z.string().min(1),
  content: z.array(z.union([textContentWireSchema, imageContentWireSchema])).default([]),
  is_error: z.boolean().default(false),
});

/**
 * Wire shape of OpenHands' `ObservationEvent`: what a tool call produced; `action_id` is the id
 * of its `ActionEvent`.
 */
export const observationEventWireSchema = z.looseObject({
  kind: z.literal('ObservationEvent'),
  ...conversationEventBaseShape('environment'),
  observation: observationPayloadSchema,
  action_id: z.string().min(1),
  tool_name: z.string().min(1),
  tool_call_id: z.string().min(1),
});

/** Wire JSON of an observation event. */
export type ObservationEventWire = z.infer<typeof observationEventWireSchema>;
