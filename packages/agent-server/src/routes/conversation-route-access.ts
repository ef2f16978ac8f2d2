import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import type { ConversationRecord, HeldConversation } from '../conversations/conversation-record.js';
import type { ConversationService } from '../conversations/conversation-service.js';

/** Largest page of conversations or events (events pages also stop at `MAX_EVENT_PAGE_BYTES`). */
export const MAX_PAGE_LIMIT = 100;

/** The `conversation_id` path parameter. */
export const conversationIdParams = z.object({ conversation_id: z.uuid() });

/** A page's `limit` query: 1 to {@link MAX_PAGE_LIMIT}, default the most. */
export const pageLimitSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT)
  .default(MAX_PAGE_LIMIT);

/** How the conversation routes reach a conversation; both count as activity. */
export interface ConversationAccess {
  /** The conversation's record (loaded or not). @throws HttpError 404. */
  found(id: string): Promise<ConversationRecord>;
  /** Runs `task` with the conversation loaded and held. @throws HttpError 404. */
  use<T>(id: string, task: (held: HeldConversation) => Promise<T> | T): Promise<T>;
}

/** The {@link ConversationAccess} of `service`, touching the server's activity clock. */
export function conversationAccess(
  context: ServerContext,
  service: ConversationService,
): ConversationAccess {
  return {
    found: async (id) => {
      await service.ready();
      context.touch();
      const record = service.get(id);
      if (!record) throw new HttpError(404, 'Conversation not found');
      return record;
    },
    use: (id, task) => {
      context.touch();
      return service.use(id, task);
    },
  };
}
