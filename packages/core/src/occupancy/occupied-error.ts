import { WorkspaceError } from '../errors/workspace-error.js';
import type { LiveLease } from './survey-leases.js';

/** One holder as an occupied error's `details.holders` lists it. */
export interface OccupyingHolder {
  leaseId: string | null;
  /** `null` when the holder keeps its record in another lease directory. */
  holderId: string | null;
  pid: number | null;
  mode: LiveLease['mode'];
  /** ISO 8601 acquisition time, `null` when unknown. */
  since: string | null;
}

/** The facts of a live lease for messages and details. */
export function occupyingHolder(lease: LiveLease): OccupyingHolder {
  return {
    leaseId: lease.leaseId,
    holderId: lease.record?.holderId ?? null,
    pid: lease.record?.pid ?? null,
    mode: lease.mode,
    since: lease.record?.acquiredAt ?? null,
  };
}

function describeHolder(holder: OccupyingHolder, leaseDir: string): string {
  if (holder.holderId === null) {
    return `${holder.mode} by a holder with no record in ${leaseDir} (lease ${holder.leaseId ?? 'unknown'})`;
  }
  return `${holder.mode} by "${holder.holderId}" (pid ${holder.pid}, since ${holder.since})`;
}

/** Options of {@link occupiedError}. */
export interface OccupiedErrorOptions {
  /** The leased workspace's id (the lease key for a bare directory). */
  workspaceId: string;
  /** What the message calls the leased thing: the workspace's anchor, or the directory. */
  anchor: string;
  /** The key the lease is taken on; in `details`. */
  leaseKey: string;
  /** The real path of the leased directory, when it is one of this machine; in `details`. */
  directory?: string | undefined;
  /** The mode that was asked for. */
  wanted: LiveLease['mode'];
  /** The live leases that refuse it (at least one). */
  conflicts: readonly LiveLease[];
  leaseDir: string;
}

/**
 * The `WORKSPACE_OCCUPIED` refusal: the message names every conflicting holder (holder id, pid,
 * mode, since); `details` has `workspaceId`, `leaseKey`, `directory` (when a directory of this
 * machine), the first holder's `holderId`, `pid`, `mode` and `since`, and all of them in
 * `holders`.
 */
export function occupiedError(options: OccupiedErrorOptions): WorkspaceError {
  const { workspaceId, anchor, leaseKey, directory, wanted, conflicts, leaseDir } = options;
  const holders = conflicts.map(occupyingHolder);
  const first = holders[0]!;
  return new WorkspaceError({
    code: 'WORKSPACE_OCCUPIED',
    message:
      `workspace ${workspaceId} (${anchor}${directory !== undefined && directory !== anchor ? `, directory ${directory}` : ''}) cannot be leased ${wanted}: held ` +
      holders.map((holder) => describeHolder(holder, leaseDir)).join('; '),
    details: {
      workspaceId,
      leaseKey,
      ...(directory === undefined ? {} : { directory }),
      wanted,
      holderId: first.holderId,
      pid: first.pid,
      mode: first.mode,
      since: first.since,
      holders,
    },
  });
}
