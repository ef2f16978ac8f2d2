import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/** `code` of the `ConversationErrorEvent` that ends a run at its iteration limit (OpenHands'). */
export const MAX_ITERATIONS_REACHED = 'MaxIterationsReached';

/** `code` of the `ConversationErrorEvent` that ends a run because the agent repeats itself. */
export const AGENT_STUCK = 'AgentStuck';

/**
 * Wire shape of OpenHands' `ConversationErrorEvent`: a failure that ends the run with status
 * `error` (the model could not be called, the iteration limit was reached). `code` is stable
 * (OpenHands writes an exception class name; ours are `WorkspaceError` codes,
 * {@link MAX_ITERATIONS_REACHED} or {@link AGENT_STUCK}), `detail` is for people.
 */
export const conversationErrorEventWireSchema = z.looseObject({
  kind: z.literal('ConversationErrorEvent'),
  ...conversationEventBaseShape('environment'),
  code: z.string().min(1),
  detail: z.string(),
});

/** Wire JSON of a conversation error event. */
export type ConversationErrorEventWire = z.infer<typeof conversationErrorEventWireSchema>;
