import { WorkspaceError } from '@agent-workspace/core';
import { anySignal } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  executeActionRequestWireSchema,
  observationWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { ActionService } from '../actions/action-service.js';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { describeStartError } from '../bash/describe-start-error.js';

/**
 * Registers OpenHands' `POST /execute_action`: `{"action": {"action": "run", "args": {...}}}` in,
 * the observation out. Unlike OpenHands (a 500 with a traceback for anything wrong), a malformed
 * body, an unknown action or bad arguments are 400 naming the field; a plugin that is not
 * enabled, failed or is still starting is an `error` observation (200), as in OpenHands.
 * A client that disconnects cancels its action.
 */
export function registerActionRoutes(app: FastifyInstance, context: ServerContext): void {
  const service = new ActionService(context);
  app.post(
    AGENT_SERVER_ROUTES.executeAction,
    {
      attachValidation: true,
      schema: {
        tags: ['Actions'],
        summary: 'Run an OpenHands action (run, read, write, edit, run_ipython, browse, ...)',
        body: executeActionRequestWireSchema,
        response: { 200: observationWireSchema },
      },
    },
    async (request, reply) => {
      if (request.validationError) {
        const parsed = executeActionRequestWireSchema.safeParse(request.body);
        const issue = parsed.success ? undefined : parsed.error.issues[0];
        const field = ['body', ...(issue?.path ?? [])].join('.');
        throw new HttpError(400, `${field}: ${issue?.message ?? request.validationError.message}`);
      }
      context.touch();
      const cancel = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) cancel.abort();
      });
      const { action } = request.body as z.infer<typeof executeActionRequestWireSchema>;
      try {
        return await context.track(
          service.execute(action, anySignal([cancel.signal, context.shutdownSignal])),
        );
      } catch (error) {
        throw actionHttpError(error, reply);
      } finally {
        context.touch();
      }
    },
  );
}

/** Bad input is a 400 with the reason; a command that cannot start answers as the bash routes do. */
function actionHttpError(
  error: unknown,
  reply: { header(name: string, value: string): void },
): unknown {
  if (!WorkspaceError.isInstance(error)) return error;
  const field = error.details.field;
  if (
    error.code === 'INVALID_ARGUMENT' &&
    typeof field === 'string' &&
    field.startsWith('action.')
  ) {
    return new HttpError(400, error.message);
  }
  const failure = describeStartError(error);
  if (!failure) return error;
  if (failure.status === 429 || failure.status === 503) reply.header('retry-after', '1');
  const named = failure.field === undefined ? undefined : `action.args.${failure.field}`;
  const status = failure.status === 422 ? 400 : failure.status;
  return new HttpError(status, named ? `${named}: ${failure.detail}` : failure.detail);
}
