import { z } from 'zod';
import { type ValidationIssue, validationIssueSchema } from './validation-issue.js';

/**
 * Wire shape of every error response: `detail` is a message, an object, or (on 422) a list of
 * validation issues. 5xx bodies add `exception` (and `error_id` when unhandled), 409 credential
 * errors add `retryable`; `traceback` appears in debug mode.
 */
export const errorEnvelopeSchema = z.object({
  detail: z.union([z.string(), z.array(validationIssueSchema), z.record(z.string(), z.unknown())]),
  exception: z.string().optional(),
  error_id: z.string().optional(),
  traceback: z.string().optional(),
  retryable: z.boolean().optional(),
});

/** Wire JSON of an {@link ErrorEnvelope}. */
export type ErrorEnvelopeWire = z.infer<typeof errorEnvelopeSchema>;

/** An error response body. */
export interface ErrorEnvelope {
  /** Message, structured detail, or the list of validation issues of a 422. */
  detail: string | ValidationIssue[] | Record<string, unknown>;
  /** The exception text of a 5xx. */
  exception?: string | undefined;
  /** 32-hex id of an unhandled error, to find it in the server log. */
  errorId?: string | undefined;
  /** Server stack trace (debug mode only). */
  traceback?: string | undefined;
  /** True when retrying the same request may succeed. */
  retryable?: boolean | undefined;
}

/** Parses an error response body. Throws a `ZodError` naming the bad field. */
export function errorEnvelopeFromWire(json: unknown): ErrorEnvelope {
  const wire = errorEnvelopeSchema.parse(json);
  return {
    detail: wire.detail,
    ...(wire.exception !== undefined ? { exception: wire.exception } : {}),
    ...(wire.error_id !== undefined ? { errorId: wire.error_id } : {}),
    ...(wire.traceback !== undefined ? { traceback: wire.traceback } : {}),
    ...(wire.retryable !== undefined ? { retryable: wire.retryable } : {}),
  };
}

/** Serialises an {@link ErrorEnvelope} to its wire JSON, leaving out absent fields. */
export function errorEnvelopeToWire(envelope: ErrorEnvelope): ErrorEnvelopeWire {
  return {
    detail: envelope.detail,
    ...(envelope.exception !== undefined ? { exception: envelope.exception } : {}),
    ...(envelope.errorId !== undefined ? { error_id: envelope.errorId } : {}),
    ...(envelope.traceback !== undefined ? { traceback: envelope.traceback } : {}),
    ...(envelope.retryable !== undefined ? { retryable: envelope.retryable } : {}),
  };
}
