import { z } from 'zod';

/** Header of `POST /api/init` carrying the dormant server's init key (OpenHands' name). */
export const INIT_API_KEY_HEADER = 'X-Init-API-Key';

/** Most session keys one `POST /api/init` may deliver. */
export const MAX_INIT_SESSION_API_KEYS = 16;

/** Longest session key `POST /api/init` accepts, in characters. */
export const MAX_INIT_SESSION_API_KEY_LENGTH = 512;

/**
 * States of a server started with deferred init (OpenHands' `InitState`): `dormant` until
 * `POST /api/init`, `initializing` while it is applied, `ready` after.
 */
export const initStateSchema = z.enum(['dormant', 'initializing', 'ready']);

/** A deferred-init state. */
export type InitState = z.infer<typeof initStateSchema>;

/**
 * Body of `POST /api/init`: the part of OpenHands' `InitRequest` our server can apply after
 * start-up. Unknown fields are rejected (OpenHands forbids extra fields too), so an
 * orchestrator sending a field we cannot honour (`conversations_path`, `webhooks`, …) learns it
 * from the 422 instead of getting a server configured differently than asked.
 */
export const initRequestWireSchema = z.strictObject({
  /**
   * Session keys that replace the dormant server's: every later `/api` request and websocket
   * must carry one of them. Omitted or null: the start-up keys stay. Unlike OpenHands, an empty
   * list is refused rather than taken as "no auth": a lost user key must not open the server.
   */
  session_api_keys: z
    .array(z.string().min(1).max(MAX_INIT_SESSION_API_KEY_LENGTH))
    .min(1, 'must list at least one key; omit the field to keep the start-up keys')
    .max(MAX_INIT_SESSION_API_KEYS)
    .nullish(),
});

/** Wire JSON of an init request. */
export type InitRequestWire = z.infer<typeof initRequestWireSchema>;

/** Answer of `GET` and `POST /api/init` (OpenHands' `InitStatus`). */
export const initStatusWireSchema = z.object({
  state: initStateSchema,
  /** Why the last `POST /api/init` failed (the state is then `dormant` again); else null. */
  error: z.string().nullable(),
});

/** Wire JSON of an init status. */
export type InitStatusWire = z.infer<typeof initStatusWireSchema>;

/**
 * The `detail` of the 503 every gated route answers while the server is not `ready`
 * (OpenHands' wording; its 5xx envelope carries it as `exception`, prefixed with `503: `).
 */
export function deferredInitDetail(state: InitState): string {
  return `server is in deferred-init state '${state}'; call POST /api/init first`;
}
