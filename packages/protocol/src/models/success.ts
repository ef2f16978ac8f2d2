import { z } from 'zod';

/** OpenHands' generic `Success` body: `{"success": true}` (`false` for some no-op updates). */
export const successSchema = z.object({ success: z.boolean().default(true) });

/** `{"success": boolean}`; the same key on the wire and in TypeScript. */
export type Success = z.infer<typeof successSchema>;

/** The `{"success": true}` body. */
export const SUCCESS: Success = Object.freeze({ success: true });
