import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/**
 * Wire shape of OpenHands' `AgentErrorEvent`: a tool call that failed before or while running
 * (unknown tool, invalid arguments, the tool threw). The model is told `error` as the call's
 * result, and the run goes on.
 */
export const agentErrorEventWireSchema = z.looseObject({
  kind: z.literal('AgentErrorEvent'),
  ...conversationEventBaseShape('agent'),
  error: z.string(),
  tool_name: z.string().min(1),
  tool_call_id: z.string().min(1),
});

/** Wire JSON of an agent error event. */
export type AgentErrorEventWire = z.infer<typeof agentErrorEventWireSchema>;
