import { z } from 'zod';
import { actionEventWireSchema } from './action-event.js';
import { agentErrorEventWireSchema } from './agent-error-event.js';
import { userRejectObservationWireSchema } from './confirmation-policy.js';
import {
  condensationEventWireSchema,
  condensationRequestEventWireSchema,
  interruptEventWireSchema,
} from './conversation-control.js';
import { conversationErrorEventWireSchema } from './conversation-error-event.js';
import { conversationStateUpdateEventWireSchema } from './conversation-state-update-event.js';
import { messageEventWireSchema } from './message-event.js';
import { observationEventWireSchema } from './observation-event.js';
import { pauseEventWireSchema } from './pause-event.js';

/**
 * Wire shape of any conversation event this project emits, discriminated by `kind`. Other
 * OpenHands event kinds (`SystemPromptEvent`, `TokenEvent`, ...) are refused at `kind`.
 */
export const conversationEventWireSchema = z.discriminatedUnion('kind', [
  messageEventWireSchema,
  actionEventWireSchema,
  observationEventWireSchema,
  userRejectObservationWireSchema,
  agentErrorEventWireSchema,
  conversationErrorEventWireSchema,
  conversationStateUpdateEventWireSchema,
  pauseEventWireSchema,
  interruptEventWireSchema,
  condensationEventWireSchema,
  condensationRequestEventWireSchema,
]);

/** Wire JSON of any conversation event; narrow on `kind`. */
export type ConversationEventWire = z.infer<typeof conversationEventWireSchema>;

/** The `kind` of a conversation event. */
export type ConversationEventKind = ConversationEventWire['kind'];
