import { z } from 'zod';
import { MAX_RUNTIME_SESSION_ID_LENGTH } from '../wire/runtime-api-routes.js';

/**
 * A session id: 1–128 characters of letters, digits, `_`, `.` and `-`, starting with a letter or
 * digit (OpenHands uses `agent-server-<uuid4>`).
 */
export const runtimeSessionIdSchema = z
  .string()
  .min(1)
  .max(MAX_RUNTIME_SESSION_ID_LENGTH)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
    'must start with a letter or digit and hold only letters, digits, _, . and -',
  );

/**
 * Where a session's sandbox is: `running` (attach), `paused` (resume, then attach) or `stopped`
 * (its sandbox ended; start a new session).
 */
export const runtimeSessionStatusSchema = z.enum(['running', 'paused', 'stopped']);

/**
 * Readiness of a session's sandbox, the OpenHands `pod_status` values: `ready` (its agent-server
 * answers `/health`), `pending` / `running` / `not found` (retry), and the fatal `failed`,
 * `unknown`, `crashloopbackoff`.
 */
export const runtimePodStatusSchema = z.enum([
  'ready',
  'pending',
  'running',
  'not found',
  'failed',
  'unknown',
  'crashloopbackoff',
]);

/** The `pod_status` values after which a session will never become ready. */
export const FATAL_POD_STATUSES: readonly RuntimePodStatus[] = [
  'failed',
  'unknown',
  'crashloopbackoff',
];

/**
 * A session as `GET /sessions/{id}`, `POST /start`, `/pause` and `/resume` answer. Lenient:
 * unknown fields are kept (other Runtime API servers add some); `id` is accepted for
 * `runtime_id`, as the OpenHands client does.
 */
export const runtimeSessionWireSchema = z.looseObject({
  runtime_id: z.string().min(1),
  session_id: z.string().min(1),
  /**
   * Base URL of the session's agent-server; empty while its sandbox publishes none (a stopped
   * container loses its published port; a Swarm task has none while paused or being scheduled).
   */
  url: z.string(),
  /** The agent-server's `X-Session-API-Key`; left out of lists. */
  session_api_key: z.string().min(1).optional(),
  status: runtimeSessionStatusSchema,
  pod_status: runtimePodStatusSchema,
  image: z.string().optional(),
  resource_factor: z.number().optional(),
  /** ISO 8601 creation time. */
  created_at: z.string().optional(),
  /** Why the sandbox is not ready: exit code, engine message, its last log lines. */
  message: z.string().nullable().optional(),
});

/** Wire JSON of a {@link RuntimeSession}. */
export type RuntimeSessionWire = z.infer<typeof runtimeSessionWireSchema>;

/** Readiness of a session's sandbox (`pod_status`). */
export type RuntimePodStatus = z.infer<typeof runtimePodStatusSchema>;
/** Where a session's sandbox is (`status`). */
export type RuntimeSessionStatus = z.infer<typeof runtimeSessionStatusSchema>;

/** A Runtime API session: a sandbox running an agent-server. */
export interface RuntimeSession {
  runtimeId: string;
  sessionId: string;
  /** Base URL of the session's agent-server. */
  url: string;
  /** The agent-server's session key (absent in lists). */
  sessionApiKey?: string | undefined;
  status: RuntimeSessionStatus;
  podStatus: RuntimePodStatus;
  image?: string | undefined;
  resourceFactor?: number | undefined;
  createdAt?: string | undefined;
  /** Why the sandbox is not ready, when the runtime says. */
  message?: string | null | undefined;
}

/** Parses wire JSON into a {@link RuntimeSession}; accepts `id` for `runtime_id`. */
export function runtimeSessionFromWire(json: unknown): RuntimeSession {
  const input =
    typeof json === 'object' && json !== null && !('runtime_id' in json) && 'id' in json
      ? { ...json, runtime_id: (json as { id: unknown }).id }
      : json;
  const wire = runtimeSessionWireSchema.parse(input);
  return {
    runtimeId: wire.runtime_id,
    sessionId: wire.session_id,
    url: wire.url,
    sessionApiKey: wire.session_api_key,
    status: wire.status,
    podStatus: wire.pod_status,
    image: wire.image,
    resourceFactor: wire.resource_factor,
    createdAt: wire.created_at,
    message: wire.message,
  };
}

/** `GET /sessions`: every session, without keys. */
export const runtimeSessionListWireSchema = z.object({
  sessions: z.array(runtimeSessionWireSchema),
});

/** Wire JSON of `GET /sessions`. */
export type RuntimeSessionListWire = z.infer<typeof runtimeSessionListWireSchema>;
