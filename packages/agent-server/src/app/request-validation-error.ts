import type { z } from 'zod';

/** A request part that failed its zod schema; the error handler turns it into a 422. */
export class RequestValidationError extends Error {
  readonly zodError: z.ZodError;
  readonly input: unknown;

  constructor(zodError: z.ZodError, input: unknown) {
    super(zodError.message);
    this.name = 'RequestValidationError';
    this.zodError = zodError;
    this.input = input;
  }
}
