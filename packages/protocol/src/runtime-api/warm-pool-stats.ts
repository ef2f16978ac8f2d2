import { z } from 'zod';

/** One image's warm pool on a Runtime API server (`GET /pool`; ours, not in OpenHands). */
export const warmPoolImageStatsWireSchema = z.object({
  /** The agent-server image the pool keeps sandboxes of. */
  image: z.string().min(1),
  /** Sandboxes the pool keeps started and ready. */
  target: z.number().int().nonnegative(),
  /** Ready, unclaimed sandboxes now. */
  warm: z.number().int().nonnegative(),
  /** Sandboxes being started (or adopted after a restart) and not ready yet. */
  starting: z.number().int().nonnegative(),
  /** Sandboxes claimed by a `/start` since the server started. */
  claimed_total: z.number().int().nonnegative(),
  /** Failed refills since the server started. */
  failures: z.number().int().nonnegative(),
  /** The last refill failure's message; `null` when none failed. */
  last_failure: z.string().nullable(),
});

/** `GET /pool`: every warm pool of the server, in configuration order (empty without pools). */
export const warmPoolStatsWireSchema = z.object({
  pools: z.array(warmPoolImageStatsWireSchema),
});

/** Wire JSON of one image's warm pool. */
export type WarmPoolImageStatsWire = z.infer<typeof warmPoolImageStatsWireSchema>;
/** Wire JSON of `GET /pool`. */
export type WarmPoolStatsWire = z.infer<typeof warmPoolStatsWireSchema>;
