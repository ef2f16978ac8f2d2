import { WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  conversationInfoWireSchema,
  forkConversationRequestWireSchema,
  SUCCESS,
  successSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { describeConversation } from '../conversations/conversation-info.js';
import {
  conversationAccess,
  conversationIdParams as idParams,
} from './conversation-route-access.js';

/**
 * The conversation control routes (OpenHands-compatible): `interrupt` (the call in flight is
 * cancelled, status `paused`; 400 for an unknown conversation, as OpenHands), `condense` (404
 * unknown; 409 when the agent has no condenser that condenses on request or there is nothing
 * to condense — OpenHands answers 500 there) and `fork` (201 with the fork's info; 404 unknown
 * conversation or `from_event_id`; 409 when the fork's `id` is taken; 422 bad body). See the
 * README "Conversation control".
 */
export function registerConversationControlRoutes(
  app: FastifyInstance,
  context: ServerContext,
): void {
  const service = context.conversations;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { use } = conversationAccess(context, service);

  typed.post(
    AGENT_SERVER_ROUTES.interruptConversation,
    {
      schema: {
        summary: 'Interrupt the run: the call in flight is cancelled and the status becomes paused',
        params: idParams,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      context.touch();
      if (!(await service.interrupt(request.params.conversation_id))) {
        throw new HttpError(400, 'Conversation not found');
      }
      return SUCCESS;
    },
  );

  typed.post(
    AGENT_SERVER_ROUTES.condenseConversation,
    {
      schema: {
        summary: "Force a condensation of the history shown to the agent's model",
        params: idParams,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      await use(request.params.conversation_id, async (held) => {
        try {
          await held.conversation.condense();
        } catch (error) {
          if (WorkspaceError.isInstance(error, 'NOT_SUPPORTED')) {
            throw new HttpError(409, error.message);
          }
          throw error;
        }
      });
      return SUCCESS;
    },
  );

  typed.post(
    AGENT_SERVER_ROUTES.forkConversation,
    {
      schema: {
        summary: 'Fork a conversation: a new one with its events up to from_event_id',
        params: idParams,
        body: forkConversationRequestWireSchema.nullish(),
        response: { 201: conversationInfoWireSchema },
      },
    },
    async (request, reply) => {
      context.touch();
      const body = forkConversationRequestWireSchema.parse(request.body ?? {});
      const record = await service.fork(request.params.conversation_id, body);
      return reply.status(201).send(await describeConversation(record));
    },
  );
}
