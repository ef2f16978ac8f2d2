import { HttpError } from '@agent-workspace/agent-server/http';
import type { StartRuntimeRequestWire } from '@agent-workspace/protocol';
import type { BackendSession, SessionSpec } from '../backend/runtime-backend.js';
import type { BackendSnapshot } from '../backend/runtime-snapshot-backend.js';
import { RUNTIME_SNAPSHOT_LABELS } from '../backend/runtime-snapshot-labels.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';
import { snapshotsOf } from './snapshots-of.js';

/**
 * The snapshot a `/start` names in `from_snapshot`, or `undefined` without one: 501 on a backend
 * without snapshots, 400 naming `from_snapshot` when this namespace has no such snapshot or
 * `image` is not the snapshot's image (the allowed-images check has judged that image already).
 */
export async function startSnapshot(
  context: RuntimeApiContext,
  body: StartRuntimeRequestWire,
): Promise<BackendSnapshot | undefined> {
  const snapshotId = body.from_snapshot;
  if (snapshotId === undefined) return undefined;
  const snapshot = await snapshotsOf(context).get(snapshotId, {
    signal: engineCallSignal(context),
  });
  if (!snapshot) {
    throw new HttpError(400, `from_snapshot: this server has no snapshot ${snapshotId}`);
  }
  if (snapshot.image !== body.image) {
    throw new HttpError(
      400,
      `from_snapshot: snapshot ${snapshotId} was taken of image ${snapshot.image}; start it with that image, not ${body.image}`,
    );
  }
  return snapshot;
}

/** `spec` started from `snapshot` (labelled with its id), or `spec` as is without one. */
export function fromSnapshotSpec(
  spec: SessionSpec,
  snapshot: BackendSnapshot | undefined,
): SessionSpec {
  if (!snapshot) return spec;
  return {
    ...spec,
    fromSnapshot: snapshot.imageId,
    labels: { ...spec.labels, [RUNTIME_SNAPSHOT_LABELS.fromSnapshot]: snapshot.snapshotId },
  };
}

/**
 * Refuses (409) to answer an existing session to a `/start` whose `from_snapshot` differs from
 * the one it was started from (none, or another), as another image is refused.
 */
export function checkSameSnapshot(existing: BackendSession, body: StartRuntimeRequestWire): void {
  const startedFrom = existing.labels[RUNTIME_SNAPSHOT_LABELS.fromSnapshot] || undefined;
  if (startedFrom === body.from_snapshot) return;
  const was = startedFrom ? `from snapshot ${startedFrom}` : 'without a snapshot';
  throw new HttpError(
    409,
    `session ${body.session_id} already exists, started ${was}; stop it or use another session_id`,
  );
}
