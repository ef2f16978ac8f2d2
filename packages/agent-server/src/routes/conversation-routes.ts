import {
  AGENT_SERVER_ROUTES,
  CONVERSATION_EXECUTION_STATUSES,
  conversationInfoWireSchema,
  conversationPageWireSchema,
  SUCCESS,
  startConversationRequestWireSchema,
  successSchema,
  updateConversationRequestWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { conversationStatus, describeConversation } from '../conversations/conversation-info.js';
import {
  conversationAccess,
  conversationIdParams as idParams,
  pageLimitSchema,
} from './conversation-route-access.js';

/** Most ids one batch get may ask for. */
export const MAX_BATCH_IDS = 100;

const searchQuery = z.object({
  /** The id of the first conversation of the page (a previous `next_page_id`). */
  page_id: z.uuid().optional(),
  limit: pageLimitSchema,
  status: z.enum(CONVERSATION_EXECUTION_STATUSES).optional(),
  sort_order: z
    .enum(['CREATED_AT', 'UPDATED_AT', 'CREATED_AT_DESC', 'UPDATED_AT_DESC'])
    .default('CREATED_AT_DESC'),
});

const batchQuery = z.object({
  ids: z
    .union([z.uuid(), z.array(z.uuid()).max(MAX_BATCH_IDS)])
    .default([])
    .transform((ids) => (typeof ids === 'string' ? [ids] : ids)),
});

/**
 * The conversation routes under `AGENT_SERVER_ROUTES.conversations` (OpenHands-compatible):
 * start, read, search, count, update, delete, run and pause (interrupt, condense and fork:
 * `registerConversationControlRoutes`); the events of a
 * conversation have their own routes (`registerConversationEventRoutes`). See the README
 * "Conversations".
 */
export function registerConversationRoutes(app: FastifyInstance, context: ServerContext): void {
  const service = context.conversations;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { found, use } = conversationAccess(context, service);

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
      return reply.status(created ? 201 : 200).send(await describeConversation(record));
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
          return record ? describeConversation(record, { statsRecords: false }) : null;
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
        .filter((record) => status === undefined || conversationStatus(record) === status)
        .sort((a, b) => {
          const [x, y] = [keyOf(a), keyOf(b)];
          const byKey = x < y ? -1 : x > y ? 1 : a.meta.id < b.meta.id ? -1 : 1;
          return descending ? -byKey : byKey;
        });
      const { items, next_page_id } = page(records, pageId, limit, (record) => record.meta.id);
      return {
        items: await Promise.all(
          items.map((record) => describeConversation(record, { statsRecords: false })),
        ),
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
        .filter((record) => status === undefined || conversationStatus(record) === status).length;
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
    async (request) => describeConversation(await found(request.params.conversation_id)),
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

  typed.post(
    AGENT_SERVER_ROUTES.pauseConversation,
    {
      schema: {
        summary: 'Pause the run after the step in flight (interrupt stops at once)',
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
