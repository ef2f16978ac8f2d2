import { z } from 'zod';
import { validationIssueSchema } from './validation-issue.js';

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

/**
 * Wire JSON of an error response body. `error_id` is the 32-hex id of an unhandled error, to
 * find it in the server log; `retryable` is true when retrying the same request may succeed.
 */
export type ErrorEnvelopeWire = z.infer<typeof errorEnvelopeSchema>;
