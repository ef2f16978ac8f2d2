import { z } from 'zod';

/** Wire shape of the `DELETE /api/bash/bash_events` response. */
export const bashEventsClearedWireSchema = z.object({
  cleared_count: z.number().int().nonnegative(),
});

/** Wire JSON of a {@link BashEventsCleared}. */
export type BashEventsClearedWire = z.infer<typeof bashEventsClearedWireSchema>;

/** How many bash events a clear-all deleted. */
export interface BashEventsCleared {
  clearedCount: number;
}

/** Parses wire JSON into a {@link BashEventsCleared}. Throws a `ZodError` naming the bad field. */
export function bashEventsClearedFromWire(json: unknown): BashEventsCleared {
  return { clearedCount: bashEventsClearedWireSchema.parse(json).cleared_count };
}

/** Serialises a {@link BashEventsCleared} to its wire JSON. */
export function bashEventsClearedToWire(value: BashEventsCleared): BashEventsClearedWire {
  return { cleared_count: value.clearedCount };
}
