import { z } from 'zod';
import { actionEventWireSchema } from './action-event.js';
import { agentErrorEventWireSchema } from './agent-error-event.js';
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
  agentErrorEventWireSchema,
  conversationErrorEventWireSchema,
  conversationStateUpdateEventWireSchema,
  pauseEventWireSchema,
]);

/** Wire JSON of any conversation event; narrow on `kind`. */
export type ConversationEventWire = z.infer<typeof conversationEventWireSchema>;

/** The `kind` of a conversation event. */
export type ConversationEventKind = ConversationEventWire['kind'];
