import { validationErrorBody } from '@agent-workspace/protocol';
import type { z } from 'zod';

/**
 * One line naming each invalid field of a client frame, pydantic-worded, e.g.
 * `command: Field required; timeout: Input should be greater than 0`.
 */
export function describeFrameError(error: z.ZodError, frame: unknown): string {
  return validationErrorBody(error, 'body', frame)
    .detail.map((issue) => {
      const field = issue.loc.slice(1).join('.');
      return `${field === '' ? 'frame' : field}: ${issue.msg}`;
    })
    .join('; ');
}
