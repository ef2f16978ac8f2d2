import { z } from 'zod';

/** Wire shape of the `DELETE /api/bash/bash_events` response. */
export const bashEventsClearedWireSchema = z.object({
  cleared_count: z.number().int().nonnegative(),
});

/** Wire JSON of the clear-all response: how many bash events it deleted. */
export type BashEventsClearedWire = z.infer<typeof bashEventsClearedWireSchema>;
