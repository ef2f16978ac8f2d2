/**
 * Labels of the Runtime API's snapshot images (beside `commitSnapshot`'s own
 * `agent-workspace.snapshot*` labels), and of a session started from one. The image labels are
 * outside the `agent-workspace.runtime.` prefix: a session started from a snapshot inherits its
 * image's labels, which must not read as the session's own.
 */
export const RUNTIME_SNAPSHOT_LABELS = {
  /** The server namespace that owns the snapshot; servers sharing an engine see only their own. */
  namespace: 'agent-workspace.runtime-snapshot.namespace',
  /** The snapshot's random 32-hex id (`snapshot_id`). */
  snapshotId: 'agent-workspace.runtime-snapshot.id',
  /** On a session's sandbox: the snapshot id it was started from. */
  fromSnapshot: 'agent-workspace.runtime.from-snapshot',
} as const;
