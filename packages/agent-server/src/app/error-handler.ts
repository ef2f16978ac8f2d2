import { randomBytes } from 'node:crypto';
import { internalServerErrorBody, validationErrorBody } from '@agent-workspace/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';
import { RequestValidationError } from './request-validation-error.js';

const LOCATIONS = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
} as const;

/**
 * Maps every failure to the OpenHands error envelope: `HttpError` → its status and `detail`,
 * schema failures → 422 with FastAPI-style issues, malformed JSON → 422 `json_invalid`,
 * framework 4xx → `{"detail": message}`, anything else → 500 with an `error_id` that is logged.
 */
export function errorHandler(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof HttpError) {
    return reply.status(error.statusCode).send({ detail: error.detail });
  }
  if (error instanceof RequestValidationError) {
    const context = (error as { validationContext?: keyof typeof LOCATIONS }).validationContext;
    const location = LOCATIONS[context ?? 'body'];
    return reply
      .status(422)
      .send(
        validationErrorBody(error.zodError, location as 'body' | 'query' | 'path', error.input),
      );
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
    return reply.status(422).send({
      detail: [
        {
          type: 'json_invalid',
          loc: ['body'],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: error.message },
        },
      ],
    });
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return reply.status(status).send({ detail: error.message });
  }
  const errorId = randomBytes(16).toString('hex');
  request.log.error({ err: error, errorId }, 'unhandled error');
  return reply.status(500).send(internalServerErrorBody(error.message, errorId));
}
