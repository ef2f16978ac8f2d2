// The server's own wire: info, init, health, identity, metrics, plugins and error bodies.
export {
  type ErrorEnvelopeWire,
  errorEnvelopeSchema,
} from './error-envelope.js';
export {
  HEALTH_OK,
  type HealthStatus,
  healthStatusSchema,
  READY,
  type ReadyStatus,
  readyStatusSchema,
} from './health-status.js';
export {
  processTreeMemoryWireSchema,
  type RuntimePluginState,
  type RuntimePluginStatusWire,
  runtimePluginStateSchema,
  runtimePluginStatusWireSchema,
  type ServerResourcesWire,
  serverResourcesWireSchema,
} from './runtime-plugin-status.js';
export {
  type ServerInfo,
  type ServerInfoWire,
  serverInfoFromWire,
  serverInfoWireSchema,
} from './server-info.js';
export {
  deferredInitDetail,
  INIT_API_KEY_HEADER,
  type InitRequestWire,
  type InitState,
  type InitStatusWire,
  initRequestWireSchema,
  initStateSchema,
  initStatusWireSchema,
  MAX_INIT_SESSION_API_KEY_LENGTH,
  MAX_INIT_SESSION_API_KEYS,
} from './server-init.js';
export { SUCCESS, type Success, successSchema } from './success.js';
export { type TrustBoundaryWire, trustBoundaryWireSchema } from './trust-boundary.js';
export { type ValidationIssue, validationIssueSchema } from './validation-issue.js';
export {
  type WorkspaceAccessMode,
  type WorkspaceIdentity,
  type WorkspaceIdentityWire,
  type WorkspaceProjectionKind,
  workspaceIdentityFromWire,
  workspaceIdentityToWire,
  workspaceIdentityWireSchema,
} from './workspace-identity.js';
export {
  type WorkspaceMetrics,
  type WorkspaceMetricsWire,
  workspaceMetricsFromWire,
  workspaceMetricsWireSchema,
} from './workspace-metrics.js';
