import type { WorkspaceAccessMode, WorkspaceIdentity } from '@agent-workspace/protocol';
import { describedSession } from '../workspace/occupancy-state.js';
import type { Workspace } from '../workspace/workspace.js';
import { assertLinux } from './assert-linux.js';
import { defaultLeaseDir, openLeaseDir } from './default-lease-dir.js';
import { identifyWorkspace } from './identify-workspace.js';
import { withLeaseGuard } from './lease-guard.js';
import { workspaceLeaseTarget } from './lease-key.js';
import { surveyLeases } from './survey-leases.js';

/** One live holder of a workspace, as {@link executionSnapshot} reports it. */
export interface OccupancyEntry {
  /** `null` for a holder that keeps its record in another lease directory. */
  holderId: string | null;
  mode: WorkspaceAccessMode;
  /** `null` when unknown (no record here). */
  pid: number | null;
  /** ISO 8601; `null` when unknown (no record here). */
  acquiredAt: string | null;
  /** `null` for an `exclusive_write` lock whose holder left no trace of its lease id. */
  leaseId: string | null;
}

/** Where an agent executes and who else is there: holon's `ExecutionSnapshot`. */
export interface ExecutionSnapshot {
  /** The workspace's identity (its `accessMode` is this object's). */
  activeWorkspace: WorkspaceIdentity;
  /**
   * Live leases of the execution root's directory, taken through any workspace on it (or of the
   * remote workspace's id); released and dead holders' are not listed.
   */
  occupancy: OccupancyEntry[];
  executionRoot: string;
  cwd: string;
  /** The session a worktree or clone workspace described, if its type reports one. */
  worktreeSession?: string | undefined;
}

/** Options of {@link executionSnapshot}. */
export interface ExecutionSnapshotOptions {
  /** Directory of the lease records; default `defaultLeaseDir()`. */
  leaseDir?: string | undefined;
  /** Aborting rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * The workspace's identity and its live occupancy leases (Linux only, like the leases). Dead
 * holders' records found on the way are marked `recoveredAt`, as `acquireWorkspace` does.
 *
 * @throws WorkspaceError `NOT_SUPPORTED` off Linux, `ABORTED`, or what `identity()` throws.
 */
export async function executionSnapshot(
  workspace: Workspace,
  options: ExecutionSnapshotOptions = {},
): Promise<ExecutionSnapshot> {
  assertLinux();
  const { signal } = options;
  const leaseDir = await openLeaseDir(options.leaseDir ?? defaultLeaseDir());
  const identity = await identifyWorkspace(workspace, signal);
  const { leaseKey } = await workspaceLeaseTarget(workspace, identity);
  const { live } = await withLeaseGuard({ leaseKey, signal }, () =>
    surveyLeases({ leaseDir, leaseKey }),
  );
  const worktreeSession = describedSession(workspace);
  return {
    activeWorkspace: identity,
    occupancy: live.map((lease) => ({
      holderId: lease.record?.holderId ?? null,
      mode: lease.mode,
      pid: lease.record?.pid ?? null,
      acquiredAt: lease.record?.acquiredAt ?? null,
      leaseId: lease.leaseId,
    })),
    executionRoot: identity.executionRoot,
    cwd: identity.cwd,
    ...(worktreeSession === undefined ? {} : { worktreeSession }),
  };
}
