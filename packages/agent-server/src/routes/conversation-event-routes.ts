import {
  AGENT_SERVER_ROUTES,
  agentFinalResponseWireSchema,
  conversationEventPageWireSchema,
  SUCCESS,
  sendMessageRequestWireSchema,
  successSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import {
  countConversationEvents,
  searchConversationEvents,
} from '../conversations/search-conversation-events.js';
import {
  conversationAccess,
  conversationIdParams as idParams,
  MAX_PAGE_LIMIT,
  pageLimitSchema,
} from './conversation-route-access.js';

const eventParams = idParams.extend({ event_id: z.string().min(1).max(200) });

const eventFilter = {
  /** `MessageEvent`, or OpenHands' fully-qualified `openhands.sdk...MessageEvent`. */
  kind: z
    .string()
    .max(200)
    .regex(/^[A-Za-z_][\w.]*$/, 'must be an event kind, bare or module-qualified')
    .optional(),
  source: z.enum(['agent', 'user', 'environment']).optional(),
};

const eventSearchQuery = z.object({
  /** The id of the first event of the page (a previous `next_page_id`). */
  page_id: z.uuid().optional(),
  limit: pageLimitSchema,
  ...eventFilter,
  sort_order: z.enum(['TIMESTAMP', 'TIMESTAMP_DESC']).default('TIMESTAMP'),
});

/**
 * The routes of a conversation's events (OpenHands-compatible): send a user message, search and
 * count events, get one, and the agent's final response. They stream the conversation's history
 * from disk, within its bounds; see the README "Conversations".
 */
export function registerConversationEventRoutes(
  app: FastifyInstance,
  context: ServerContext,
): void {
  const service = context.conversations;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { use } = conversationAccess(context, service);

  typed.post(
    AGENT_SERVER_ROUTES.conversationEvents,
    {
      schema: {
        summary: 'Send a user message (and start a run with run: true)',
        params: idParams,
        body: sendMessageRequestWireSchema,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      await use(request.params.conversation_id, (held) => service.sendMessage(held, request.body));
      return SUCCESS;
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.searchConversationEvents,
    {
      schema: {
        summary: `Search the events of a conversation (pages of at most ${MAX_PAGE_LIMIT} events and about 4 MiB)`,
        params: idParams,
        querystring: eventSearchQuery,
        response: { 200: conversationEventPageWireSchema },
      },
    },
    async (request) => {
      const { page_id: pageId, limit, sort_order: order, ...filter } = request.query;
      return use(request.params.conversation_id, (held) =>
        searchConversationEvents(held.conversation.history, held.cursors, {
          ...filter,
          pageId,
          limit,
          descending: order === 'TIMESTAMP_DESC',
        }),
      );
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.countConversationEvents,
    {
      schema: {
        summary: 'Count the events of a conversation',
        params: idParams,
        querystring: z.object(eventFilter),
        response: { 200: z.number().int() },
      },
    },
    async (request) =>
      use(request.params.conversation_id, (held) =>
        countConversationEvents(held.conversation.history, request.query),
      ),
  );

  typed.get(
    AGENT_SERVER_ROUTES.conversationEvent,
    { schema: { summary: 'Get one event of a conversation', params: eventParams } },
    async (request) => {
      const entry = await use(request.params.conversation_id, (held) =>
        held.conversation.history.find(request.params.event_id),
      );
      if (!entry) throw new HttpError(404, 'Event not found');
      return entry.event;
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.agentFinalResponse,
    {
      schema: {
        summary: "The agent's final answer ('' if none)",
        params: idParams,
        response: { 200: agentFinalResponseWireSchema },
      },
    },
    async (request) => ({
      response: await use(request.params.conversation_id, (held) =>
        held.conversation.history.finalResponse(),
      ),
    }),
  );
}
