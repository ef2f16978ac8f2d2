import { WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  confirmationResponseRequestWireSchema,
  SUCCESS,
  setConfirmationPolicyRequestWireSchema,
  setSecurityAnalyzerRequestWireSchema,
  successSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import {
  conversationAccess,
  conversationIdParams as idParams,
} from './conversation-route-access.js';

/** The detail of a 409 to a confirmation response when nothing waits for one. */
export const NOTHING_PENDING_DETAIL = 'No actions are waiting for confirmation';

/**
 * The confirmation-mode routes (OpenHands-compatible; README "Confirmation mode"):
 * - `POST …/confirmation_policy` `{"policy": {"kind": "NeverConfirm"|"AlwaysConfirm"|"ConfirmRisky",
 *   "threshold"?, "confirm_unknown"?}}`: the policy for the next steps, persisted;
 * - `POST …/security_analyzer` `{"security_analyzer": {"kind": "PatternSecurityAnalyzer"}|null}`;
 *   OpenHands' other kinds (`LLMSecurityAnalyzer`, …) are 422 "not supported";
 * - `POST …/events/respond_to_confirmation` `{"accept", "reason"?}`: accepting starts a run in the
 *   background that runs the held actions first (as OpenHands); rejecting records a
 *   `UserRejectObservation` per held action, which never runs, and the status becomes `idle`.
 *   409 when nothing waits for confirmation (OpenHands answers 200 and, for an accept, starts a
 *   run anyway: we refuse so that a late or repeated answer is noticed); `reason` at most
 *   `MAX_REJECTION_REASON_CHARS` (4096) characters.
 * All three: 404 for an unknown conversation, 422 for a bad body naming the field.
 */
export function registerConversationConfirmationRoutes(
  app: FastifyInstance,
  context: ServerContext,
): void {
  const service = context.conversations;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { use } = conversationAccess(context, service);

  typed.post(
    AGENT_SERVER_ROUTES.conversationConfirmationPolicy,
    {
      schema: {
        summary: 'Set the confirmation policy (when actions wait for the user)',
        params: idParams,
        body: setConfirmationPolicyRequestWireSchema,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      await use(request.params.conversation_id, (held) =>
        held.conversation.setConfirmationPolicy(request.body.policy),
      );
      return SUCCESS;
    },
  );

  typed.post(
    AGENT_SERVER_ROUTES.conversationSecurityAnalyzer,
    {
      schema: {
        summary: 'Set the security analyzer that rates each action (null for none)',
        params: idParams,
        body: setSecurityAnalyzerRequestWireSchema,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      await use(request.params.conversation_id, (held) =>
        held.conversation.setSecurityAnalyzer(request.body.security_analyzer),
      );
      return SUCCESS;
    },
  );

  typed.post(
    AGENT_SERVER_ROUTES.respondToConfirmation,
    {
      schema: {
        summary: 'Accept (they run) or reject (with a reason) the actions waiting for confirmation',
        params: idParams,
        body: confirmationResponseRequestWireSchema,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      const { accept, reason } = request.body;
      await use(request.params.conversation_id, async (held) => {
        // The run that held the actions may still be writing its end: wait for it.
        if (held.conversation.state.executionStatus === 'waiting_for_confirmation') await held.run;
        if (held.run !== undefined) throw new HttpError(409, NOTHING_PENDING_DETAIL);
        try {
          await held.conversation.respondToConfirmation({ accept, reason, run: false });
        } catch (error) {
          if (WorkspaceError.isInstance(error, 'NOT_FOUND')) {
            throw new HttpError(409, NOTHING_PENDING_DETAIL);
          }
          throw error;
        }
        // A run that started meanwhile (POST …/run) runs the accepted actions already.
        if (accept) await service.startRunUnlessRunning(held);
      });
      return SUCCESS;
    },
  );
}
