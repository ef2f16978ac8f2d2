import {
  AGENT_SERVER_ROUTES,
  agentFinalResponseWireSchema,
  CONVERSATION_EXECUTION_STATUSES,
  conversationEventPageWireSchema,
  conversationInfoWireSchema,
  conversationPageWireSchema,
  SUCCESS,
  sendMessageRequestWireSchema,
  startConversationRequestWireSchema,
  successSchema,
  updateConversationRequestWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import type { HeldConversation } from '../conversations/conversation-service.js';
import { conversationServiceOf } from '../conversations/conversation-service-of.js';
import {
  countConversationEvents,
  searchConversationEvents,
} from '../conversations/search-conversation-events.js';

/** Largest page of conversations or events (events pages also stop at `MAX_EVENT_PAGE_BYTES`). */
export const MAX_PAGE_LIMIT = 100;

/** Most ids one batch get may ask for. */
export const MAX_BATCH_IDS = 100;

const idParams = z.object({ conversation_id: z.uuid() });
const eventParams = idParams.extend({ event_id: z.string().min(1).max(200) });
const limitSchema = z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(MAX_PAGE_LIMIT);

const searchQuery = z.object({
  /** The id of the first conversation of the page (a previous `next_page_id`). */
  page_id: z.uuid().optional(),
  limit: limitSchema,
  status: z.enum(CONVERSATION_EXECUTION_STATUSES).optional(),
  sort_order: z
    .enum(['CREATED_AT', 'UPDATED_AT', 'CREATED_AT_DESC', 'UPDATED_AT_DESC'])
    .default('CREATED_AT_DESC'),
});

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
  limit: limitSchema,
  ...eventFilter,
  sort_order: z.enum(['TIMESTAMP', 'TIMESTAMP_DESC']).default('TIMESTAMP'),
});

const batchQuery = z.object({
  ids: z
    .union([z.uuid(), z.array(z.uuid()).max(MAX_BATCH_IDS)])
    .default([])
    .transform((ids) => (typeof ids === 'string' ? [ids] : ids)),
});

/**
 * The conversation routes under `AGENT_SERVER_ROUTES.conversations` (OpenHands-compatible):
 * start, read, search, count, update, delete, run, pause, interrupt, send messages, read events
 * and the agent's final response. Event routes stream the conversation's history from disk; see
 * the README "Conversations".
 */
export function registerConversationRoutes(app: FastifyInstance, context: ServerContext): void {
  const service = conversationServiceOf(context, app);
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const found = async (id: string) => {
    await service.ready();
    context.touch();
    const record = service.get(id);
    if (!record) throw new HttpError(404, 'Conversation not found');
    return record;
  };
  const use = <T>(id: string, task: (held: HeldConversation) => Promise<T> | T): Promise<T> => {
    context.touch();
    return service.use(id, task);
  };

  typed.post(
    AGENT_SERVER_ROUTES.conversations,
    {
      schema: {
        summary: 'Start a conversation (200 with the existing one for a known conversation_id)',
        body: startConversationRequestWireSchema,
        response: { 200: conversationInfoWireSchema, 201: conversationInfoWireSchema },
      },
    },
    async (request, reply) => {
      context.touch();
      const { record, created } = await service.create(request.body);
      return reply.status(created ? 201 : 200).send(await service.info(record));
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.conversations,
    {
      schema: {
        summary: 'Get conversations by id (null for unknown ones)',
        querystring: batchQuery,
        response: { 200: z.array(conversationInfoWireSchema.nullable()) },
      },
    },
    async (request) => {
      await service.ready();
      return Promise.all(
        request.query.ids.map((id) => {
          const record = service.get(id);
          return record ? service.info(record) : null;
        }),
      );
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.searchConversations,
    {
      schema: {
        summary: 'Search conversations',
        querystring: searchQuery,
        response: { 200: conversationPageWireSchema },
      },
    },
    async (request) => {
      await service.ready();
      const { page_id: pageId, limit, status, sort_order: order } = request.query;
      const byUpdate = order.startsWith('UPDATED_AT');
      const descending = order.endsWith('_DESC');
      const keyOf = (record: { meta: { created_at: string }; updatedAt: string }) =>
        byUpdate ? record.updatedAt : record.meta.created_at;
      const records = service
        .list()
        .filter((record) => status === undefined || service.statusOf(record) === status)
        .sort((a, b) => {
          const [x, y] = [keyOf(a), keyOf(b)];
          const byKey = x < y ? -1 : x > y ? 1 : a.meta.id < b.meta.id ? -1 : 1;
          return descending ? -byKey : byKey;
        });
      const { items, next_page_id } = page(records, pageId, limit, (record) => record.meta.id);
      return {
        items: await Promise.all(items.map((record) => service.info(record))),
        next_page_id,
      };
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.countConversations,
    {
      schema: {
        summary: 'Count conversations',
        querystring: z.object({ status: z.enum(CONVERSATION_EXECUTION_STATUSES).optional() }),
        response: { 200: z.number().int() },
      },
    },
    async (request) => {
      await service.ready();
      const { status } = request.query;
      return service
        .list()
        .filter((record) => status === undefined || service.statusOf(record) === status).length;
    },
  );

  typed.get(
    AGENT_SERVER_ROUTES.conversation,
    {
      schema: {
        summary: 'Get a conversation',
        params: idParams,
        response: { 200: conversationInfoWireSchema },
      },
    },
    async (request) => service.info(await found(request.params.conversation_id)),
  );

  typed.patch(
    AGENT_SERVER_ROUTES.conversation,
    {
      schema: {
        summary: 'Update title and tags ({"success": false} for an unknown conversation)',
        params: idParams,
        body: updateConversationRequestWireSchema,
        response: { 200: successSchema },
      },
    },
    async (request) =>
      (await service.update(request.params.conversation_id, request.body))
        ? SUCCESS
        : { success: false },
  );

  typed.delete(
    AGENT_SERVER_ROUTES.conversation,
    {
      schema: {
        summary: 'Delete a conversation (the workspace is kept)',
        params: idParams,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      context.touch();
      if (!(await service.delete(request.params.conversation_id))) {
        throw new HttpError(400, 'Conversation not found');
      }
      return SUCCESS;
    },
  );

  typed.post(
    AGENT_SERVER_ROUTES.runConversation,
    {
      schema: {
        summary: 'Start a run in the background (409 while one is going on)',
        params: idParams,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      await use(request.params.conversation_id, (held) => service.startRun(held));
      return SUCCESS;
    },
  );

  for (const route of [
    AGENT_SERVER_ROUTES.pauseConversation,
    AGENT_SERVER_ROUTES.interruptConversation,
  ]) {
    typed.post(
      route,
      {
        schema: {
          summary: 'Stop the run: the call in flight is cancelled and the status becomes paused',
          params: idParams,
          response: { 200: successSchema },
        },
      },
      async (request) => {
        context.touch();
        if (!(await service.pause(request.params.conversation_id))) {
          throw new HttpError(400, 'Conversation not found');
        }
        return SUCCESS;
      },
    );
  }

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

/** One page of `items` starting at the item whose key is `pageId` (or the first). */
function page<T>(
  items: T[],
  pageId: string | undefined,
  limit: number,
  keyOf: (item: T) => string,
): { items: T[]; next_page_id: string | null } {
  let start = 0;
  if (pageId !== undefined) {
    start = items.findIndex((item) => keyOf(item) === pageId);
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + limit);
  const next = items[start + limit];
  return { items: slice, next_page_id: next === undefined ? null : keyOf(next) };
}
