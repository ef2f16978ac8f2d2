import { z } from 'zod';

/** How a path changed relative to the base ref. */
export const gitChangeStatusSchema = z.enum(['ADDED', 'DELETED', 'UPDATED', 'MOVED']);

/** One of `ADDED`, `DELETED`, `UPDATED`, `MOVED`. */
export type GitChangeStatus = z.infer<typeof gitChangeStatusSchema>;

/** Wire shape of a changed path (identical in both cases: the fields are single words). */
export const gitChangeWireSchema = z.object({
  status: gitChangeStatusSchema,
  path: z.string(),
});

/** A changed path, POSIX and relative to the repository that was asked about. */
export type GitChange = z.infer<typeof gitChangeWireSchema>;

/** Wire shape of a file diff: the file's content now and at the base ref. */
export const gitDiffWireSchema = z.object({
  modified: z.string().nullable(),
  original: z.string().nullable(),
});

/** A file's content now (`modified`) and at the base ref (`original`); `null` outside a repository. */
export type GitDiff = z.infer<typeof gitDiffWireSchema>;
