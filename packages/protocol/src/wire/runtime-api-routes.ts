/** Header carrying the Runtime API key on every Runtime API request (matched case-insensitively). */
export const RUNTIME_API_KEY_HEADER = 'X-API-Key';

/**
 * Paths of the Runtime API (the OpenHands runtime API that provisions sandboxes), the one
 * spelling client and server share. `session` is a route pattern; build it with
 * {@link runtimeSessionPath}.
 */
export const RUNTIME_API_ROUTES = {
  /** Liveness of the Runtime API server itself; no key needed. */
  health: '/health',
  /** GET lists every session the backend knows (ours; not in OpenHands). */
  sessions: '/sessions',
  /** GET one session by its `session_id`, with its agent-server URL and key. */
  session: '/sessions/:session_id',
  start: '/start',
  pause: '/pause',
  resume: '/resume',
  stop: '/stop',
  /** GET the warm pools' numbers per image (ours; not in OpenHands). */
  pool: '/pool',
  /** POST takes a snapshot of a session, GET lists the namespace's (ours; not in OpenHands). */
  snapshots: '/snapshots',
  /**
   * DELETE removes a snapshot (ours; not in OpenHands). A route pattern; build it with
   * {@link runtimeSnapshotPath}.
   */
  snapshot: '/snapshots/:snapshot_id',
} as const;

/** The path of `GET /sessions/{session_id}`, percent-encoded. */
export function runtimeSessionPath(sessionId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}`;
}

/** The path of `DELETE /snapshots/{snapshot_id}`, percent-encoded. */
export function runtimeSnapshotPath(snapshotId: string): string {
  return `/snapshots/${encodeURIComponent(snapshotId)}`;
}

/** Longest snapshot `name`, in characters. */
export const MAX_RUNTIME_SNAPSHOT_NAME_LENGTH = 200;

/** Longest `session_id`, in characters. */
export const MAX_RUNTIME_SESSION_ID_LENGTH = 128;

/** The `resource_factor` values a session may ask for: limits are the server's base times this. */
export const RUNTIME_RESOURCE_FACTORS = [1, 2, 4, 8] as const;
