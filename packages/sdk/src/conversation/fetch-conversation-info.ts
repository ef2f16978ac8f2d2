import {
  AGENT_SERVER_ROUTES,
  type ConversationInfoWire,
  conversationInfoWireSchema,
  conversationPath,
} from '@agent-workspace/protocol';
import { parseReply } from './parse-reply.js';
import type { ConversationHttp } from './remote-conversation-http.js';

/** `GET /api/conversations/{id}`, checked. */
export async function fetchConversationInfo(
  http: ConversationHttp,
  id: string,
  signal?: AbortSignal,
): Promise<ConversationInfoWire> {
  const reply = await http.request({
    method: 'GET',
    path: conversationPath(AGENT_SERVER_ROUTES.conversation, id),
    signal,
  });
  return parseReply(http, 'GET /api/conversations/{id}', conversationInfoWireSchema, reply.json);
}
