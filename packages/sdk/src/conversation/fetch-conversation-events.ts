import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  type ConversationEventWire,
  conversationEventPageWireSchema,
  conversationPath,
} from '@agent-workspace/protocol';

/** Events per page when filling the event list over REST (the server's maximum). */
export const REMOTE_EVENT_PAGE_LIMIT = 100;

/**
 * Every event of conversation `id`, oldest first, paging `GET …/events/search`; with `fromId`,
 * the event with that id and every newer one (an empty list when the server no longer keeps it).
 */
export async function fetchConversationEvents(
  client: AgentServerClient,
  id: string,
  signal: AbortSignal,
  fromId?: string,
): Promise<ConversationEventWire[]> {
  const path = conversationPath(AGENT_SERVER_ROUTES.searchConversationEvents, id);
  const events: ConversationEventWire[] = [];
  let pageId: string | null = fromId ?? null;
  do {
    const query = new URLSearchParams({ limit: String(REMOTE_EVENT_PAGE_LIMIT) });
    if (pageId !== null) query.set('page_id', pageId);
    const page = await client.json(
      { method: 'GET', path, query, signal },
      conversationEventPageWireSchema,
    );
    events.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId !== null);
  return events;
}
