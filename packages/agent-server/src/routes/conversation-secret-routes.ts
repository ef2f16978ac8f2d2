import { WorkspaceError } from '@agent-workspace/core';
import { AGENT_SERVER_ROUTES, SUCCESS, successSchema } from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { zodValidatorCompiler } from '../app/zod-validator-compiler.js';
import { parseSecretsBody, secretsOf } from '../conversations/conversation-secrets-of.js';
import { conversationIdParams as idParams } from './conversation-route-access.js';

/** What the OpenAPI document shows of the body (it is checked by hand, see below). */
const bodyDoc = z.object({
  secrets: z
    .record(z.string(), z.unknown())
    .describe(
      'Name → "value" | {"value"} | {"kind":"StaticSecret","value","description"?} | {"kind":"LookupSecret","url","headers"?,"description"?}',
    ),
});

/**
 * OpenHands' `POST /api/conversations/{id}/secrets` (`UpdateSecretsRequest`): adds or replaces
 * the conversation's secrets, given to the terminal's commands that name them as environment
 * variables and masked in every event. `{"success": true}`; 404 for an unknown conversation; 422
 * for a bad body — a name that is not an environment variable name or is reserved, a malformed
 * source, a value over `MAX_SECRET_VALUE_BYTES`, more than `MAX_CONVERSATION_SECRETS` in all —
 * whose issues name the field but, unlike other 422s, never echo the input. The body is checked
 * by hand, not by the route schema, for that reason. Secrets live in memory (see the README
 * "Secrets"). No log line holds a value.
 */
export function registerConversationSecretRoutes(
  app: FastifyInstance,
  context: ServerContext,
): void {
  const service = context.conversations;
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    AGENT_SERVER_ROUTES.conversationSecrets,
    {
      schema: {
        summary: "Add or replace the conversation's secrets (environment variables of commands)",
        params: idParams,
        body: bodyDoc,
        response: { 200: successSchema },
      },
      // The body schema documents; the handler checks the body, so no value is echoed.
      validatorCompiler: (route) =>
        route.httpPart === 'body'
          ? (data) => ({ value: data })
          : zodValidatorCompiler(route as unknown as Parameters<typeof zodValidatorCompiler>[0]),
    },
    async (request) => {
      const body = request.body as unknown;
      const given =
        typeof body === 'object' && body !== null && !Array.isArray(body)
          ? (body as { secrets?: unknown }).secrets
          : undefined;
      if (given === undefined) {
        throw new HttpError(422, [
          { type: 'missing', loc: ['body', 'secrets'], msg: 'Field required' },
        ]);
      }
      const secrets = parseSecretsBody(given, ['secrets']);
      context.touch();
      await service.use(request.params.conversation_id, async (held) => {
        const registry = await secretsOf(held.record);
        try {
          registry.update(secrets);
          // A conversation made another way (a fork) has a registry of its own.
          await held.conversation.updateSecrets(secrets);
        } catch (error) {
          if (WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) {
            throw new HttpError(422, [
              { type: 'value_error', loc: ['body', 'secrets'], msg: error.message },
            ]);
          }
          if (WorkspaceError.isInstance(error, 'RESOURCE_EXHAUSTED')) {
            throw new HttpError(422, [
              { type: 'value_error', loc: ['body', 'secrets'], msg: error.message },
            ]);
          }
          throw error;
        }
      });
      return SUCCESS;
    },
  );
}
