import { WorkspaceError } from '@agent-workspace/core';
import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  type ConversationExecutionStatus,
  type ConversationInfoWire,
  conversationInfoWireSchema,
  conversationPath,
} from '@agent-workspace/protocol';
import { z } from 'zod';

/** The batch answer of `GET /api/conversations?ids=…` for one id: its status only is read. */
const statusReplySchema = z.array(
  conversationInfoWireSchema.pick({ execution_status: true }).nullable(),
);

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

/**
 * The execution status of conversation `id`, by `GET /api/conversations?ids={id}` (whose stats
 * come without their per-call records, so the answer stays small however long the
 * conversation); `NOT_FOUND` when the server has no such conversation.
 */
export async function fetchConversationStatus(
  client: AgentServerClient,
  id: string,
  signal: AbortSignal | undefined,
): Promise<ConversationExecutionStatus> {
  const [info] = await client.json(
    {
      method: 'GET',
      path: AGENT_SERVER_ROUTES.conversations,
      query: new URLSearchParams({ ids: id }),
      signal,
    },
    statusReplySchema,
  );
  if (info) return info.execution_status;
  throw new WorkspaceError({
    code: 'NOT_FOUND',
    message: `the agent-server has no conversation ${id}`,
    details: { conversationId: id },
  });
}
