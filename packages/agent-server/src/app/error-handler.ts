import { randomBytes } from 'node:crypto';
import { WorkspaceError } from '@agent-workspace/core';
import {
  httpErrorBody,
  internalServerErrorBody,
  validationErrorBody,
  WORKSPACE_ERROR_WIRE,
} from '@agent-workspace/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { withoutSecretValues } from '../conversations/conversation-secrets-of.js';
import { HttpError } from './http-error.js';
import { jsonInvalid } from './parse-json-body.js';
import { RequestValidationError } from './request-validation-error.js';

const LOCATIONS = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
} as const;

/**
 * Maps every failure to the OpenHands error envelope: `HttpError` → its status and `detail`,
 * a `WorkspaceError` → the status `WORKSPACE_ERROR_WIRE` gives its code (unless that is a 500),
 * schema failures → 422 with FastAPI-style issues, malformed JSON → 422 `json_invalid`,
 * framework 4xx → `{"detail": message}`, a machine out of descriptors or memory → 503 with
 * `Retry-After`, out of disk → 507, anything else → 500 with an `error_id` that is logged (a
 * system error's paths are left out of the body).
 */
export function errorHandler(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof HttpError) {
    return reply.status(error.statusCode).send(httpErrorBody(error.detail));
  }
  if (WorkspaceError.isInstance(error) && WORKSPACE_ERROR_WIRE[error.code].status < 500) {
    return reply.status(WORKSPACE_ERROR_WIRE[error.code].status).send(httpErrorBody(error.message));
  }
  if (error instanceof RequestValidationError) {
    const context = (error as { validationContext?: keyof typeof LOCATIONS }).validationContext;
    const location = LOCATIONS[context ?? 'body'];
    return reply
      .status(422)
      .send(
        validationErrorBody(
          error.zodError,
          location as 'body' | 'query' | 'path',
          withoutSecretValues(error.input),
        ),
      );
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
    return reply.status(422).send(httpErrorBody(jsonInvalid(error.message).detail));
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return reply.status(status).send(httpErrorBody(error.message));
  }
  const system = SYSTEM_ERRORS[(error as NodeJS.ErrnoException).code ?? ''];
  if (system) {
    if (system.status === 503) reply.header('retry-after', '1');
    return reply.status(system.status).send(httpErrorBody(system.detail));
  }
  const errorId = randomBytes(16).toString('hex');
  request.log.error({ err: error, errorId }, 'unhandled error');
  return reply.status(500).send(internalServerErrorBody(publicMessage(error), errorId));
}

/** System errors that are no bug: the machine is out of something, or refuses on purpose. */
const SYSTEM_ERRORS: Record<string, { status: number; detail: string }> = {
  EMFILE: { status: 503, detail: 'Too many open files on the server; retry later' },
  ENFILE: { status: 503, detail: 'Too many open files on the server; retry later' },
  EAGAIN: { status: 503, detail: 'The server is out of resources; retry later' },
  ENOMEM: { status: 503, detail: 'The server is out of memory; retry later' },
  ENOSPC: { status: 507, detail: 'No space left on the server' },
  EDQUOT: { status: 507, detail: 'Disk quota exceeded on the server' },
  EROFS: { status: 403, detail: 'Read-only file system' },
};

/** A 500's message without the server paths a system error names (`EIO: ..., open '/x'`). */
function publicMessage(error: Error): string {
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof syscall === 'string'
    ? `${code} (${syscall})`
    : error.message;
}
