/**
 * The Runtime API server (`@agent-workspace/runtime-api`): the OpenHands runtime API that
 * provisions agent-server sandboxes, on one Docker engine or a Docker Swarm.
 *
 * @packageDocumentation
 */
export {
  DockerRuntimeBackend,
  type DockerRuntimeBackendOptions,
} from './backend/docker-runtime-backend.js';
export type {
  BackendCallOptions,
  BackendSession,
  RuntimeBackend,
  SessionResources,
  SessionSpec,
  WarmSandboxBackend,
  WarmSandboxSpec,
} from './backend/runtime-backend.js';
export type {
  BackendSnapshot,
  RuntimeSnapshotBackend,
  TakeSnapshotOptions,
} from './backend/runtime-snapshot-backend.js';
export { RUNTIME_SNAPSHOT_LABELS } from './backend/runtime-snapshot-labels.js';
export { RUNTIME_LABEL_PREFIX, RUNTIME_LABELS } from './backend/session-labels.js';
export {
  SESSION_VOLUMES_LABEL,
  type SessionVolume,
  SHARED_VOLUME_LABEL,
  sharedVolumeName,
} from './backend/session-volumes.js';
export {
  SwarmRuntimeBackend,
  type SwarmRuntimeBackendOptions,
} from './backend/swarm-runtime-backend.js';
export { MAX_RUNTIME_API_BODY_BYTES, OPENAPI_PATH } from './server/build-runtime-api-app.js';
export {
  createRuntimeApiServer,
  type RuntimeApiServer,
} from './server/create-runtime-api-server.js';
export type { WarmPoolImageStats } from './server/image-pool.js';
export type { ReapedSession, ReapFailure, ReapReport } from './server/reap-sessions.js';
export {
  RESERVED_ENVIRONMENT_NAMES,
  type ReservedEnvironmentName,
} from './server/reserved-environment-names.js';
export {
  MIN_API_KEY_LENGTH,
  MIN_SESSION_KEY_SECRET_LENGTH,
  type ResolvedRuntimeApiServerOptions,
  RUNTIME_API_SERVER_DEFAULTS,
  type RuntimeApiServerOptions,
  runtimeApiServerOptionsSchema,
} from './server/runtime-api-server-options.js';
export { SESSION_LIMIT_RETRY_AFTER_SECONDS } from './server/start-session.js';
export {
  DEFAULT_WARM_POOL_WORKING_DIR,
  MAX_WARM_SANDBOXES,
  type WarmPoolEntry,
} from './server/warm-pool-options.js';
