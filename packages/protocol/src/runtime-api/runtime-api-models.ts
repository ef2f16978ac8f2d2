// The Runtime API wire: sessions, snapshots, volumes, `POST /start` and warm pools.
export { runtimeApiWireSchemas } from './runtime-api-wire-schemas.js';
export {
  FATAL_POD_STATUSES,
  type RuntimePodStatus,
  type RuntimeSession,
  type RuntimeSessionListWire,
  type RuntimeSessionStatus,
  type RuntimeSessionWire,
  runtimePodStatusSchema,
  runtimeSessionFromWire,
  runtimeSessionIdSchema,
  runtimeSessionListWireSchema,
  runtimeSessionStatusSchema,
  runtimeSessionWireSchema,
} from './runtime-session.js';
export {
  type RuntimeSnapshot,
  type RuntimeSnapshotListWire,
  type RuntimeSnapshotRemovedWire,
  type RuntimeSnapshotWire,
  runtimeSnapshotFromWire,
  runtimeSnapshotIdSchema,
  runtimeSnapshotListWireSchema,
  runtimeSnapshotNameSchema,
  runtimeSnapshotRemovedWireSchema,
  runtimeSnapshotWireSchema,
  type TakeRuntimeSnapshotRequestWire,
  takeRuntimeSnapshotRequestWireSchema,
} from './runtime-snapshot.js';
export {
  isSameOrAncestorPath,
  MAX_RUNTIME_VOLUME_NAME_LENGTH,
  MAX_RUNTIME_VOLUME_PATH_LENGTH,
  MAX_RUNTIME_VOLUMES,
  RUNTIME_VOLUME_RESERVED_TARGETS,
  type RuntimeVolumeWire,
  runtimeVolumeNameSchema,
  runtimeVolumesWireSchema,
  runtimeVolumeWireSchema,
} from './runtime-volume.js';
export {
  type RuntimeIdRequestWire,
  type RuntimeStoppedWire,
  runtimeIdRequestWireSchema,
  runtimeStoppedWireSchema,
  type StartRuntimeRequestWire,
  startRuntimeRequestWireSchema,
} from './start-runtime-request.js';
export {
  type WarmPoolImageStatsWire,
  type WarmPoolStatsWire,
  warmPoolImageStatsWireSchema,
  warmPoolStatsWireSchema,
} from './warm-pool-stats.js';
