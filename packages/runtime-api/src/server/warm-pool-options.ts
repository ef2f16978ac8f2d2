import path from 'node:path';
import { z } from 'zod';

/** Most warm sandboxes one server keeps, over all images (each pool's `count` is within it). */
export const MAX_WARM_SANDBOXES = 32;

/**
 * Working directory of warm sandboxes when their pool sets none: `RemoteAPIWorkspace`'s default
 * and the agent-server image's.
 */
export const DEFAULT_WARM_POOL_WORKING_DIR = '/workspace';

/** One image's warm pool: how many sandboxes to keep ready, and the settings they start with. */
export const warmPoolEntrySchema = z.strictObject({
  /** The agent-server image; must be one of the server's `images`. */
  image: z.string().min(1),
  /** Sandboxes kept started and ready: 1 to {@link MAX_WARM_SANDBOXES} (all pools together). */
  count: z.number().int().min(1).max(MAX_WARM_SANDBOXES),
  /**
   * Working directory of the sandboxes (absolute); a `/start` is served from the pool only when
   * its `working_dir` is exactly this. Default {@link DEFAULT_WARM_POOL_WORKING_DIR}.
   */
  workingDir: z
    .string()
    .min(1)
    .max(4096)
    .refine((value) => path.posix.isAbsolute(value), 'must be an absolute path')
    .default(DEFAULT_WARM_POOL_WORKING_DIR),
  /**
   * Numeric user the sandboxes run as; unset runs the image's user. A `/start` is served from the
   * pool only when its `run_as_user` is exactly this (both unset, or equal).
   */
  runAsUser: z.number().int().min(0).max(2_147_483_647).optional(),
});

/** The `warmPool` option: one entry per image, at most {@link MAX_WARM_SANDBOXES} in all. */
export const warmPoolOptionsSchema = z
  .array(warmPoolEntrySchema)
  .superRefine((entries, context) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      if (seen.has(entry.image)) {
        context.addIssue({
          code: 'custom',
          path: [index, 'image'],
          message: `${entry.image} has a pool already: one entry per image`,
        });
      }
      seen.add(entry.image);
    });
    const total = entries.reduce((sum, entry) => sum + entry.count, 0);
    if (total > MAX_WARM_SANDBOXES) {
      context.addIssue({
        code: 'custom',
        path: [],
        message: `the pools hold ${total} sandboxes; at most ${MAX_WARM_SANDBOXES} in all`,
      });
    }
  })
  .default([]);

/** One image's warm pool after defaults. */
export type WarmPoolEntry = z.output<typeof warmPoolEntrySchema>;
