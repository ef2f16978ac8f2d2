import {
  AGENT_SERVER_ROUTES,
  type BashOutputWire,
  bashCommandWireSchema,
  bashEventPageWireSchema,
  bashEventSearchQueryFromWire,
  bashEventSearchQueryWireSchema,
  bashEventsClearedWireSchema,
  bashEventWireSchema,
  bashOutputWireSchema,
  type ExecuteBashRequestWire,
  executeBashRequestWireSchema,
  hexIdInputSchema,
  normalizeHexId,
  validationErrorBody,
  wireTimestampSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import { parseJsonBody } from '../app/parse-json-body.js';
import type { ServerContext } from '../app/server-context.js';
import type { BashCommandRequest, StartedBashCommand } from '../bash/bash-command-types.js';
import { describeStartError } from '../bash/describe-start-error.js';
import { MAX_PAGE_BYTES } from '../bash/search-bash-events.js';

/** `next_page_id` values are canonical event timestamps. */
const pageIdSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, {
    message: 'Expected a next_page_id returned by an earlier search',
    abort: true,
  })
  .refine((value) => wireTimestampSchema.safeParse(value).success, 'Not a valid next_page_id');

const searchQuerySchema = bashEventSearchQueryWireSchema.extend({
  page_id: pageIdSchema.optional(),
});

const eventIdParamsSchema = z.object({ event_id: hexIdInputSchema });

/** Most ids one batch get may ask for (as many as a search page holds). */
const MAX_BATCH_IDS = 100;

const batchIdsSchema = z.array(hexIdInputSchema).max(MAX_BATCH_IDS);

/** Largest JSON body accepted by the batch get (a GET with a body, which Fastify does not parse). */
const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/**
 * OpenHands-compatible bash routes (`AGENT_SERVER_ROUTES`): start (returns at once), execute (waits;
 * returns the whole captured output, not only the last chunk), event search with every filter
 * applied before paging, get by id, batch get (a GET whose body is a JSON array of ids), and
 * clear (history of finished commands only).
 */
export function registerBashRoutes(app: FastifyInstance, context: ServerContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    AGENT_SERVER_ROUTES.startBashCommand,
    {
      schema: {
        summary: 'Start a bash command; its output arrives as BashOutput events',
        body: executeBashRequestWireSchema,
        response: { 200: bashCommandWireSchema },
      },
    },
    async (request, reply) => (await startCommand(context, request.body, reply, false)).event,
  );

  routes.post(
    AGENT_SERVER_ROUTES.executeBashCommand,
    {
      schema: {
        summary: 'Run a bash command and wait for it; returns its whole (capped) output',
        body: executeBashRequestWireSchema,
        response: { 200: bashOutputWireSchema },
      },
    },
    async (request, reply): Promise<BashOutputWire> => {
      const started = await startCommand(context, request.body, reply, true);
      // The command is followed while the client waits for it (see orphanedCommandGraceSeconds).
      reply.raw.once('close', started.release);
      const { final, result } = await started.completion;
      return { ...final, stdout: result.stdout || null, stderr: result.stderr || null };
    },
  );

  routes.get(
    AGENT_SERVER_ROUTES.searchBashEvents,
    {
      schema: {
        summary: 'Search bash events',
        querystring: searchQuerySchema,
        response: { 200: bashEventPageWireSchema },
      },
    },
    async (request) => {
      const page = context.bash.search(bashEventSearchQueryFromWire(request.query));
      return { items: page.items, next_page_id: page.nextPageId };
    },
  );

  routes.get(
    AGENT_SERVER_ROUTES.bashEvent,
    {
      schema: {
        summary: 'Get a bash event by id',
        params: eventIdParamsSchema,
        response: { 200: bashEventWireSchema },
      },
    },
    async (request) => {
      const id = normalizeHexId(request.params.event_id);
      const event = context.bash.get(id);
      if (!event) throw new HttpError(404, `Bash event not found: ${id}`);
      return event;
    },
  );

  routes.get(
    AGENT_SERVER_ROUTES.bashEventsBatch,
    {
      schema: {
        summary: 'Get bash events by id; the body is a JSON array of ids, null for unknown ones',
        response: { 200: z.array(bashEventWireSchema.nullable()) },
      },
    },
    async (request) => {
      const ids = await readBatchIds(request);
      const events = ids.map((id) => context.bash.get(normalizeHexId(id)));
      const bytes = events.reduce(
        (sum, event) => sum + (event ? JSON.stringify(event).length : 0),
        0,
      );
      if (bytes > MAX_PAGE_BYTES) {
        throw new HttpError(
          413,
          `The events asked for are ${bytes} bytes, more than a page (${MAX_PAGE_BYTES}); ask for fewer ids`,
        );
      }
      return events.map((event) => event ?? null);
    },
  );

  routes.delete(
    AGENT_SERVER_ROUTES.bashEvents,
    {
      schema: {
        summary: 'Delete the events of finished commands',
        response: { 200: bashEventsClearedWireSchema },
      },
    },
    async () => ({ cleared_count: context.bash.clear() }),
  );
}

/**
 * Starts a command for a route (`execute` waits for it and follows it; `start` returns at once,
 * detached), mapping failures to answers that name the field: 400 cwd, 403 confinement, 422
 * input, 429 too many commands and 503 out of descriptors, both with `Retry-After`.
 */
async function startCommand(
  context: ServerContext,
  body: ExecuteBashRequestWire,
  reply: FastifyReply,
  execute: boolean,
): Promise<StartedBashCommand> {
  context.touch();
  const request: BashCommandRequest = {
    command: body.command,
    cwd: body.cwd ?? undefined,
    timeoutSeconds: body.timeout,
    captureOutput: execute,
    detached: !execute,
  };
  try {
    return await context.bash.startCommand(request);
  } catch (error) {
    const failure = describeStartError(error);
    if (!failure) throw error;
    if (failure.status === 422) {
      const loc = ['body', ...(failure.field ?? 'body').split('.')];
      throw new HttpError(422, [
        {
          type: 'value_error',
          loc,
          msg: failure.detail,
          input: failure.field === 'command' ? body.command : null,
        },
      ]);
    }
    if (failure.status === 429 || failure.status === 503) reply.header('retry-after', '1');
    throw new HttpError(failure.status, failure.detail);
  }
}

/** Reads and validates the JSON id array a batch get carries in its (unparsed) GET body. */
async function readBatchIds(request: FastifyRequest): Promise<string[]> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BATCH_BODY_BYTES) {
      throw new HttpError(413, `Request body is larger than ${MAX_BATCH_BODY_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  const body = parseJsonBody(Buffer.concat(chunks));
  const parsed = batchIdsSchema.safeParse(body);
  if (!parsed.success) {
    throw new HttpError(422, validationErrorBody(parsed.error, 'body', body).detail);
  }
  return parsed.data;
}
