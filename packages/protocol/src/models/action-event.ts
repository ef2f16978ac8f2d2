import { z } from 'zod';
import { securityRiskSchema } from './confirmation-policy.js';
import { conversationEventBaseShape } from './conversation-event-base.js';
import { messageToolCallWireSchema } from './message-tool-call.js';
import { textContentWireSchema } from './text-content.js';

/**
 * A tool's action: `kind` names it the OpenHands way (`TerminalAction`, `FileEditorAction`,
 * ...); the other fields are the tool's validated arguments, kept verbatim.
 */
const actionPayloadSchema = z.looseObject({ kind: z.string().min(1) });

/**
 * Wire shape of OpenHands' `ActionEvent`: one tool call of the agent. `action` is `null` when
 * the call could not become an action (unknown tool, invalid arguments); an `AgentErrorEvent`
 * for the same `tool_call_id` then says why. The actions of one model response share
 * `llm_response_id`, and only the first carries the response's text as `thought`.
 */
export const actionEventWireSchema = z.looseObject({
  kind: z.literal('ActionEvent'),
  ...conversationEventBaseShape('agent'),
  thought: z.array(textContentWireSchema).default([]),
  action: actionPayloadSchema.nullable().default(null),
  tool_name: z.string().min(1),
  tool_call_id: z.string().min(1),
  tool_call: messageToolCallWireSchema,
  llm_response_id: z.string().min(1),
  /** The risk the conversation's security analyzer gave the action (OpenHands' field). */
  security_risk: securityRiskSchema.optional(),
});

/** Wire JSON of an action event. */
export type ActionEventWire = z.infer<typeof actionEventWireSchema>;
