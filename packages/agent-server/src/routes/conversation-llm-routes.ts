import { WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  askAgentRequestWireSchema,
  askAgentResponseWireSchema,
  SUCCESS,
  successSchema,
  switchLlmRequestWireSchema,
} from '@agent-workspace/protocol';
import type { LanguageModel } from '@agent-workspace/sdk';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import {
  conversationAccess,
  conversationIdParams as idParams,
} from './conversation-route-access.js';

/**
 * The model-control routes of a conversation (OpenHands-compatible):
 *
 * - `POST …/ask_agent` `{"question"}` (1 to `MAX_ASK_AGENT_QUESTION_LENGTH` characters) →
 *   `{"response"}`: a side question answered by the agent's model with the history as context;
 *   no tool runs and no event is recorded (the usage counts in `stats` under `ask-agent-llm`).
 *   404 unknown conversation, 422 a bad question, 500 when the model fails or answers no text
 *   (OpenHands answers 500 when there is no answer).
 * - `POST …/switch_llm` `{"llm": LLM}` → `{"success": true}`: the agent's next model call uses
 *   `llm` (a call in flight finishes on the old one), recorded in the persisted agent. `llm` is
 *   validated as a start request's `agent.llm`: 422 naming the field under `body.llm`; 404
 *   unknown conversation.
 */
export function registerConversationLLMRoutes(app: FastifyInstance, context: ServerContext): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { use } = conversationAccess(context, context.conversations);

  typed.post(
    AGENT_SERVER_ROUTES.askAgent,
    {
      schema: {
        summary: 'Ask the agent a side question (no tools run, no events recorded)',
        params: idParams,
        body: askAgentRequestWireSchema,
        response: { 200: askAgentResponseWireSchema },
      },
    },
    async (request, reply) => {
      // A client that goes away before the answer cancels the model call.
      const gone = new AbortController();
      const onClose = (): void => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      try {
        const response = await use(request.params.conversation_id, (held) =>
          held.conversation.askAgent(request.body.question, { signal: gone.signal }),
        );
        return { response };
      } catch (error) {
        throw askAgentFailure(error);
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  typed.post(
    AGENT_SERVER_ROUTES.switchLlm,
    {
      schema: {
        summary: "Switch the agent's model for its next calls",
        params: idParams,
        body: switchLlmRequestWireSchema,
        response: { 200: successSchema },
      },
    },
    async (request) => {
      const model = await modelFromWire(request.body.llm);
      await use(request.params.conversation_id, (held) => held.conversation.switchLlm(model));
      return SUCCESS;
    },
  );
}

/** The model of a `switch_llm` body; a bad config is a 422 naming the field under `llm`. */
async function modelFromWire(json: Record<string, unknown>): Promise<LanguageModel> {
  const { languageModelFromConfig } = await import('@agent-workspace/sdk');
  try {
    return languageModelFromConfig(json);
  } catch (error) {
    if (!WorkspaceError.isInstance(error)) throw error;
    const field = typeof error.details.field === 'string' ? error.details.field : undefined;
    throw new HttpError(422, [
      {
        type: 'value_error',
        loc: ['body', 'llm', ...(field && field !== '(root)' ? field.split('.') : [])],
        msg: error.message,
        input: null,
      },
    ]);
  }
}

/** What an `ask_agent` failure answers: 422 for a bad question, 500 when the model gave none. */
function askAgentFailure(error: unknown): unknown {
  if (error instanceof HttpError || !WorkspaceError.isInstance(error)) return error;
  if (error.code === 'INVALID_ARGUMENT') {
    return new HttpError(422, [
      { type: 'value_error', loc: ['body', 'question'], msg: error.message, input: null },
    ]);
  }
  if (error.code === 'WORKSPACE_CLOSED' || error.code === 'NOT_FOUND') return error;
  // The model failed or answered no text; its message never holds a key (LLMError redacts).
  return new HttpError(500, `The agent gave no answer: ${error.message}`);
}
