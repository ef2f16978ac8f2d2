import { WorkspaceError } from '@agent-workspace/core';
import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  type ConversationInfoWire,
  conversationInfoWireSchema,
  conversationPath,
  type ForkConversationRequestWire,
  successSchema,
} from '@agent-workspace/protocol';
import { checkedTitle } from './conversation-control.js';
import { expectOk } from './remote-conversation-http.js';

/** Options of `RemoteConversation.fork`. */
export interface ForkRemoteConversationOptions {
  /** The fork's id (a dashed UUID); default one the server makes. `ALREADY_EXISTS` if taken. */
  conversationId?: string | undefined;
  /** The last event the fork copies; default all. `NOT_FOUND` for an unknown event. */
  fromEventId?: string | undefined;
  /** The fork's title (1 to 200 characters). */
  title?: string | undefined;
  /** The fork's tags. */
  tags?: Record<string, string> | undefined;
  /** Whether the fork's stats start fresh (default true, as OpenHands). */
  resetMetrics?: boolean | undefined;
}

/** What the control requests of a remote conversation need. */
export interface RemoteControlTarget {
  client: AgentServerClient;
  conversationId: string;
  signal: AbortSignal;
}

/** `POST …/{route}` with no body, 2xx expected. */
export async function postControl(target: RemoteControlTarget, route: string): Promise<void> {
  await expectOk(target.client, {
    method: 'POST',
    path: conversationPath(route, target.conversationId),
    signal: target.signal,
  });
}

/**
 * `POST …/condense`. The server's 409 (no condenser that condenses on request, or nothing to
 * forget) becomes `NOT_SUPPORTED`, as `LocalConversation.condense` throws it.
 */
export async function postCondense(target: RemoteControlTarget): Promise<void> {
  try {
    await postControl(target, AGENT_SERVER_ROUTES.condenseConversation);
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'ALREADY_EXISTS')) throw error;
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: error.message,
      details: { ...error.details, conversationId: target.conversationId },
      cause: error,
    });
  }
}

/** `PATCH /api/conversations/{id}` with the title; `NOT_FOUND` on OpenHands' `{success: false}`. */
export async function patchTitle(target: RemoteControlTarget, title: string): Promise<void> {
  const { client, conversationId, signal } = target;
  const reply = await client.json(
    {
      method: 'PATCH',
      path: conversationPath(AGENT_SERVER_ROUTES.conversation, conversationId),
      json: { title: checkedTitle(title) },
      signal,
    },
    successSchema,
  );
  if (!reply.success) {
    throw new WorkspaceError({
      code: 'NOT_FOUND',
      message: `the server has no conversation ${conversationId}`,
      details: { conversationId },
    });
  }
}

/** `POST …/fork`: the fork's info (201). */
export async function postFork(
  target: RemoteControlTarget,
  options: ForkRemoteConversationOptions,
): Promise<ConversationInfoWire> {
  if (options.title !== undefined) checkedTitle(options.title);
  const body: ForkConversationRequestWire = { reset_metrics: options.resetMetrics ?? true };
  if (options.conversationId !== undefined) body.id = options.conversationId;
  if (options.fromEventId !== undefined) body.from_event_id = options.fromEventId;
  if (options.title !== undefined) body.title = options.title;
  if (options.tags !== undefined) body.tags = options.tags;
  return target.client.json(
    {
      method: 'POST',
      path: conversationPath(AGENT_SERVER_ROUTES.forkConversation, target.conversationId),
      json: body,
      signal: target.signal,
    },
    conversationInfoWireSchema,
  );
}
