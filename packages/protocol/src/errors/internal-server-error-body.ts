import { z } from 'zod';
import { hexIdSchema } from '../ids/hex-id.js';

/** Wire shape of a 5xx body: `{"detail":"Internal Server Error","exception":…,"error_id"?:…}`. */
export const internalServerErrorBodySchema = z.object({
  detail: z.literal('Internal Server Error'),
  exception: z.string(),
  error_id: hexIdSchema.optional(),
});

/** Wire JSON of a 5xx error body. */
export type InternalServerErrorBody = z.infer<typeof internalServerErrorBodySchema>;

/**
 * Builds a 5xx body. Pass an `errorId` (see `newHexId`) for unhandled errors, so the client
 * can quote it and the server log can be searched for it.
 */
export function internalServerErrorBody(
  exception: string,
  errorId?: string,
): InternalServerErrorBody {
  return {
    detail: 'Internal Server Error',
    exception,
    ...(errorId !== undefined ? { error_id: errorId } : {}),
  };
}
