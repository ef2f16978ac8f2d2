import type { BackendCallOptions } from './runtime-backend.js';

/** A snapshot as a backend reports it. */
export interface BackendSnapshot {
  /** Random 32-hex id. */
  snapshotId: string;
  /** The engine's id of what a session starts from (`SessionSpec.fromSnapshot`). */
  imageId: string;
  /** The session it was taken of. */
  sessionId: string;
  /** The session's image. */
  image: string;
  name: string;
  /** ISO 8601 time it was taken. */
  createdAt: string;
  sizeBytes: number;
}

/** Options of {@link RuntimeSnapshotBackend.take}. */
export interface TakeSnapshotOptions extends BackendCallOptions {
  /** The snapshot's name; default the session id. */
  name?: string | undefined;
}

/**
 * The snapshot side of a backend: a session's filesystem committed on the engine, labelled with
 * the backend's namespace (another namespace never lists or removes it), holding no value of the
 * session's environment (neither the user's nor the key hash).
 */
export interface RuntimeSnapshotBackend {
  /**
   * Snapshots the session `runtimeId` (running or paused; a paused one stays paused).
   * `NOT_FOUND` for an unknown runtime id.
   */
  take(runtimeId: string, options?: TakeSnapshotOptions): Promise<BackendSnapshot>;
  /** The namespace's snapshots, newest first. */
  list(options?: BackendCallOptions): Promise<BackendSnapshot[]>;
  /** The namespace's snapshot `snapshotId`, or `undefined`. */
  get(snapshotId: string, options?: BackendCallOptions): Promise<BackendSnapshot | undefined>;
  /**
   * Removes the snapshot; `false` when the namespace has none of that id, `WORKSPACE_OCCUPIED`
   * while a session started from it still exists.
   */
  remove(snapshotId: string, options?: BackendCallOptions): Promise<boolean>;
}
