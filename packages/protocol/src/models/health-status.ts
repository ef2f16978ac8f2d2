import { z } from 'zod';

/** Body of `GET /alive` and `GET /health`: `{"status":"ok"}`. */
export const healthStatusSchema = z.object({ status: z.literal('ok') });

/** `{"status":"ok"}`. */
export type HealthStatus = z.infer<typeof healthStatusSchema>;

/**
 * Body of `GET /ready`: `{"status":"ready"}` (200) or
 * `{"status":"initializing","message":…}` (503).
 */
export const readyStatusSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ready') }),
  z.object({ status: z.literal('initializing'), message: z.string() }),
]);

/** Readiness of the server; the same keys on the wire and in TypeScript. */
export type ReadyStatus = z.infer<typeof readyStatusSchema>;

/** The `/health` and `/alive` body. */
export const HEALTH_OK: HealthStatus = Object.freeze({ status: 'ok' });

/** The 200 `/ready` body. */
export const READY: ReadyStatus = Object.freeze({ status: 'ready' });
