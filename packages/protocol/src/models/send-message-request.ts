import { z } from 'zod';
import { imageContentWireSchema } from './image-content.js';
import { textContentWireSchema } from './text-content.js';

/** Most content parts one message may carry. */
export const MAX_MESSAGE_CONTENT_PARTS = 100;

/**
 * Wire shape of OpenHands' `SendMessageRequest` (`POST /api/conversations/{id}/events`, and a
 * start request's `initial_message`): a user message, and whether to start a run after it.
 */
export const sendMessageRequestWireSchema = z.looseObject({
  /** Only `user` messages are accepted by this server. */
  role: z.literal('user').default('user'),
  content: z
    .array(z.union([textContentWireSchema, imageContentWireSchema]))
    .max(MAX_MESSAGE_CONTENT_PARTS)
    .default([]),
  /** Start a run once the message is recorded. Default false. */
  run: z.boolean().default(false),
});

/** Wire JSON of a send-message request. */
export type SendMessageRequestWire = z.infer<typeof sendMessageRequestWireSchema>;
