import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { RequestValidationError } from './request-validation-error.js';

/**
 * Validates request parts with their zod schemas and keeps the `ZodError`, so the error handler
 * can answer with FastAPI-style 422 issues naming each field.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    return result.success
      ? { value: result.data }
      : { error: new RequestValidationError(result.error, data) };
  };
