import {
  AGENT_SERVER_ROUTES,
  type ConversationEventWire,
  conversationEventPageWireSchema,
  conversationPath,
} from '@agent-workspace/protocol';
import { parseReply } from './parse-reply.js';
import type { ConversationHttp } from './remote-conversation-http.js';

/** Events per page when filling the event list over REST (the server's maximum). */
export const REMOTE_EVENT_PAGE_LIMIT = 100;

/** Every event of conversation `id`, oldest first, paging `GET …/events/search`. */
export async function fetchConversationEvents(
  http: ConversationHttp,
  id: string,
): Promise<ConversationEventWire[]> {
  const events: ConversationEventWire[] = [];
  let pageId: string | null = null;
  do {
    const query = new URLSearchParams({ limit: String(REMOTE_EVENT_PAGE_LIMIT) });
    if (pageId !== null) query.set('page_id', pageId);
    const reply = await http.request({
      method: 'GET',
      path: `${conversationPath(AGENT_SERVER_ROUTES.searchConversationEvents, id)}?${query}`,
    });
    const page = parseReply(http, 'GET events/search', conversationEventPageWireSchema, reply.json);
    events.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId !== null);
  return events;
}
