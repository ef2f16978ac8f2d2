import { z } from 'zod';
import { conversationEventWireSchema } from './conversation-event.js';

/** Wire shape of a page of `GET /api/conversations/{id}/events/search`. */
export const conversationEventPageWireSchema = z.object({
  items: z.array(conversationEventWireSchema),
  /** The id of the first event of the next page, or `null` on the last page. */
  next_page_id: z.string().nullable(),
});

/** Wire JSON of a conversation event page. */
export type ConversationEventPageWire = z.infer<typeof conversationEventPageWireSchema>;
