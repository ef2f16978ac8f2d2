import { HttpError } from '@agent-workspace/agent-server/http';
import type { RuntimeSnapshotBackend } from '../backend/runtime-snapshot-backend.js';
import type { RuntimeApiContext } from './runtime-api-context.js';

/**
 * The backend's snapshots, or a 501: a Swarm session keeps its files on a node-local volume,
 * which a commit of its container would not hold.
 */
export function snapshotsOf(context: Pick<RuntimeApiContext, 'backend'>): RuntimeSnapshotBackend {
  const { snapshots, kind } = context.backend;
  if (snapshots) return snapshots;
  throw new HttpError(
    501,
    `snapshots are not supported by the ${kind} backend (its sessions' files are not in what the engine could commit); use the docker backend`,
  );
}
