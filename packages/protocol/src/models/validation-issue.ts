import { z } from 'zod';

/**
 * One entry of a 422 `detail` list, as FastAPI reports pydantic errors: `loc` starts with where
 * the value came from (`body`, `query`, `path`) followed by the field path. Unknown keys
 * (e.g. pydantic's `url`) are dropped.
 */
export const validationIssueSchema = z.object({
  type: z.string(),
  loc: z.array(z.union([z.string(), z.number().int()])),
  msg: z.string(),
  input: z.unknown().optional(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});

/** A validation failure for one field (same keys on the wire and in TypeScript). */
export type ValidationIssue = z.infer<typeof validationIssueSchema>;
