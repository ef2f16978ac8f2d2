/**
 * The Runtime API server (`@agent-workspace/remote-api/server`): the OpenHands runtime API that
 * provisions agent-server sandboxes, on one Docker engine or a Docker Swarm.
 *
 * @packageDocumentation
 */
export {
  DockerRuntimeBackend,
  type DockerRuntimeBackendOptions,
} from '../backend/docker-runtime-backend.js';
export type {
  BackendCallOptions,
  BackendSession,
  RuntimeBackend,
  SessionResources,
  SessionSpec,
  WarmSandboxBackend,
  WarmSandboxSpec,
} from '../backend/runtime-backend.js';
export { RUNTIME_LABEL_PREFIX, RUNTIME_LABELS } from '../backend/session-labels.js';
export {
  SwarmRuntimeBackend,
  type SwarmRuntimeBackendOptions,
} from '../backend/swarm-runtime-backend.js';
export { MAX_RUNTIME_API_BODY_BYTES, OPENAPI_PATH } from './build-runtime-api-app.js';
export { createRuntimeApiServer, type RuntimeApiServer } from './create-runtime-api-server.js';
export type { WarmPoolImageStats } from './image-pool.js';
export type { ReapedSession, ReapFailure, ReapReport } from './reap-sessions.js';
export {
  RESERVED_ENVIRONMENT_NAMES,
  type ReservedEnvironmentName,
} from './reserved-environment-names.js';
export {
  DEFAULT_HOST,
  DEFAULT_IDLE_ACTION,
  DEFAULT_IDLE_CHECK_INTERVAL_SECONDS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_PORT,
  DEFAULT_READINESS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_UNACKNOWLEDGED_START_GRACE_SECONDS,
  MIN_API_KEY_LENGTH,
  MIN_SESSION_KEY_SECRET_LENGTH,
  type ResolvedRuntimeApiServerOptions,
  type RuntimeApiServerOptions,
  runtimeApiServerOptionsSchema,
} from './runtime-api-server-options.js';
export { SESSION_LIMIT_RETRY_AFTER_SECONDS } from './start-session.js';
export {
  DEFAULT_WARM_POOL_WORKING_DIR,
  MAX_WARM_SANDBOXES,
  type WarmPoolEntry,
} from './warm-pool-options.js';
