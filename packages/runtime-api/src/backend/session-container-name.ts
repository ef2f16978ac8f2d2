import { sessionObjectName } from './session-labels.js';

/** Prefix of the name of an unclaimed warm pool container. */
const WARM_CONTAINER_PREFIX = 'agent-workspace-warm-';

/**
 * The container name of a session on one Docker engine: {@link sessionObjectName} (unique per
 * namespace and session id, so the engine refuses a second start of a session id) followed by
 * `.` and the session id itself (session ids are valid container-name characters, at most 128).
 * The name is the one attribute of a container that can change after it is created: claiming a
 * warm pool container renames it to this, which binds the session durably (the session id is
 * read back from the name) and atomically (the engine refuses a name in use, whether a cold
 * start or another claim holds it).
 */
export function sessionContainerName(namespace: string, sessionId: string): string {
  return `${sessionObjectName(namespace, sessionId)}.${sessionId}`;
}

/**
 * The session id a container name binds in `namespace` (see {@link sessionContainerName}), or
 * `undefined` for any other name (a warm container, another namespace's, a foreign one).
 */
export function sessionIdOfContainerName(name: string, namespace: string): string | undefined {
  const bare = name.startsWith('/') ? name.slice(1) : name;
  const prefixLength = sessionObjectName(namespace, '').length;
  const sessionId = bare.slice(prefixLength + 1);
  if (!sessionId) return undefined;
  return sessionContainerName(namespace, sessionId) === bare ? sessionId : undefined;
}

/** The name of an unclaimed warm pool container: its 32-hex runtime id says which. */
export function warmContainerName(runtimeId: string): string {
  return `${WARM_CONTAINER_PREFIX}${runtimeId}`;
}

/** True when `name` is an unclaimed warm pool container's. */
export function isWarmContainerName(name: string): boolean {
  return (name.startsWith('/') ? name.slice(1) : name).startsWith(WARM_CONTAINER_PREFIX);
}
