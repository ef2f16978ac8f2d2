import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  type ConversationInfoWire,
  conversationInfoWireSchema,
  conversationPath,
} from '@agent-workspace/protocol';

/** `GET /api/conversations/{id}`, checked; `NOT_FOUND` when the server has no such conversation. */
export function fetchConversationInfo(
  client: AgentServerClient,
  id: string,
  signal: AbortSignal | undefined,
): Promise<ConversationInfoWire> {
  return client.json(
    { method: 'GET', path: conversationPath(AGENT_SERVER_ROUTES.conversation, id), signal },
    conversationInfoWireSchema,
  );
}
