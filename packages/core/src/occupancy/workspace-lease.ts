import type { WorkspaceAccessMode } from '@agent-workspace/protocol';

/**
 * An occupancy lease on a workspace (see `acquireWorkspace`). The lock is a socket the kernel
 * frees when this process dies; `release()` (or `await using`) frees it sooner.
 */
export interface WorkspaceLease extends AsyncDisposable {
  /** 32 hex digits, unique per lease. */
  readonly leaseId: string;
  /** What the lease is keyed by: the directory's (see `directoryLeaseTarget`) or a remote id. */
  readonly leaseKey: string;
  /** The `workspaceId` of the leased workspace's identity (the `leaseKey` for `acquireDirectory`). */
  readonly workspaceId: string;
  /** The real path of the leased directory; `undefined` for a remote workspace. */
  readonly directory: string | undefined;
  /** Who holds the lease, as given to `acquireWorkspace`. */
  readonly holderId: string;
  /** `shared_read` (any number at once, no writer) or `exclusive_write` (alone). */
  readonly mode: WorkspaceAccessMode;
  /** ISO 8601 timestamp of the acquisition. */
  readonly acquiredAt: string;
  /** Frees the lease and records `releasedAt`. Idempotent. */
  release(): Promise<void>;
}

/** Options of `acquireWorkspace`. */
export interface AcquireWorkspaceOptions {
  /** Who takes the lease (an agent, a session, a user): named in other holders' refusals. */
  holderId: string;
  /** `shared_read` coexists with other readers; `exclusive_write` with no other holder. */
  mode: WorkspaceAccessMode;
  /** Directory of the lease records; default `defaultLeaseDir()`. */
  leaseDir?: string | undefined;
  /** Aborting before the lease is taken rejects with `ABORTED` and takes nothing. */
  signal?: AbortSignal | undefined;
}
