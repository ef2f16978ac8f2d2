import {
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
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import type { BashCommandRequest, StartedBashCommand } from '../bash/bash-event-service.js';
import { describeStartError } from '../bash/describe-start-error.js';

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

const batchIdsSchema = z.array(hexIdInputSchema);

/** Largest JSON body accepted by the batch get (a GET with a body, which Fastify does not parse). */
const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/**
 * OpenHands-compatible bash routes under `/api/bash`: start (returns at once), execute (waits;
 * returns the whole captured output, not only the last chunk), event search with every filter
 * applied before paging, get by id, batch get (a GET whose body is a JSON array of ids), and
 * clear (history of finished commands only).
 */
export function registerBashRoutes(app: FastifyInstance, context: ServerContext): void {
  void app.register(async (scope) => {
    acceptEmptyJsonBodies(scope);
    registerRoutes(scope, context);
  });
}

/**
 * Treats an empty `application/json` body as no body, as FastAPI does: the OpenHands client sends
 * `DELETE /api/bash/bash_events` with that content type and nothing else.
 */
function acceptEmptyJsonBodies(scope: FastifyInstance): void {
  const parseJson = scope.getDefaultJsonParser('error', 'ignore');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });
}

function registerRoutes(app: FastifyInstance, context: ServerContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/api/bash/start_bash_command',
    {
      schema: {
        summary: 'Start a bash command; its output arrives as BashOutput events',
        body: executeBashRequestWireSchema,
        response: { 200: bashCommandWireSchema },
      },
    },
    async (request) => (await startCommand(context, request.body, false)).event,
  );

  routes.post(
    '/api/bash/execute_bash_command',
    {
      schema: {
        summary: 'Run a bash command and wait for it; returns its whole (capped) output',
        body: executeBashRequestWireSchema,
        response: { 200: bashOutputWireSchema },
      },
    },
    async (request): Promise<BashOutputWire> => {
      const started = await startCommand(context, request.body, true);
      const { final, result } = await started.completion;
      return { ...final, stdout: result.stdout || null, stderr: result.stderr || null };
    },
  );

  routes.get(
    '/api/bash/bash_events/search',
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
    '/api/bash/bash_events/:event_id',
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
    '/api/bash/bash_events/',
    {
      schema: {
        summary: 'Get bash events by id; the body is a JSON array of ids, null for unknown ones',
        response: { 200: z.array(bashEventWireSchema.nullable()) },
      },
    },
    async (request) => {
      const ids = await readBatchIds(request);
      return ids.map((id) => context.bash.get(normalizeHexId(id)) ?? null);
    },
  );

  routes.delete(
    '/api/bash/bash_events',
    {
      schema: {
        summary: 'Delete the events of finished commands',
        response: { 200: bashEventsClearedWireSchema },
      },
    },
    async () => ({ cleared_count: context.bash.clear() }),
  );
}

/** Starts a command for a route, mapping failures to 4xx/503 answers that name the field. */
async function startCommand(
  context: ServerContext,
  body: ExecuteBashRequestWire,
  captureOutput: boolean,
): Promise<StartedBashCommand> {
  context.touch();
  const request: BashCommandRequest = {
    command: body.command,
    timeoutSeconds: body.timeout,
    captureOutput,
  };
  try {
    if (body.cwd != null) request.cwd = await context.resolvePath(body.cwd, 'cwd');
    return context.bash.startCommand(request);
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
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch (error) {
    throw new HttpError(422, [
      {
        type: 'json_invalid',
        loc: ['body'],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: (error as Error).message },
      },
    ]);
  }
  const parsed = batchIdsSchema.safeParse(body);
  if (!parsed.success) {
    throw new HttpError(422, validationErrorBody(parsed.error, 'body', body).detail);
  }
  return parsed.data;
}
