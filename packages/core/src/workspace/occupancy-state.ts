import type { WorkspaceAccessMode } from '@agent-workspace/protocol';
import { WorkspaceError } from '../errors/workspace-error.js';

/**
 * Per-object state that the occupancy leases (`occupancy/`) keep about a workspace object and
 * `BaseWorkspace` reads: the leases it holds and the session its type described. Module state,
 * not exported from the package: nothing outside core can mark a workspace as leased.
 */

/** A lease a workspace object holds. */
export interface HeldLease {
  leaseId: string;
  holderId: string;
  mode: WorkspaceAccessMode;
  pid: number;
  /** ISO 8601 timestamp. */
  acquiredAt: string;
}

const heldByWorkspace = new WeakMap<object, Map<string, HeldLease>>();
const sessionByWorkspace = new WeakMap<object, string>();

/** Records that `workspace` holds `lease` (until {@link forgetHeldLease}). */
export function recordHeldLease(workspace: object, lease: HeldLease): void {
  let held = heldByWorkspace.get(workspace);
  if (held === undefined) {
    held = new Map();
    heldByWorkspace.set(workspace, held);
  }
  held.set(lease.leaseId, lease);
}

/** Forgets a lease of `workspace` (released). */
export function forgetHeldLease(workspace: object, leaseId: string): void {
  heldByWorkspace.get(workspace)?.delete(leaseId);
}

/** The ids of the leases `workspace` holds. */
export function heldLeaseIds(workspace: object): Set<string> {
  return new Set(heldByWorkspace.get(workspace)?.keys() ?? []);
}

/** The first `shared_read` lease `workspace` holds, if any. */
export function heldSharedReadLease(workspace: object): HeldLease | undefined {
  for (const lease of heldByWorkspace.get(workspace)?.values() ?? []) {
    if (lease.mode === 'shared_read') return lease;
  }
  return undefined;
}

/**
 * Throws `FORBIDDEN` naming `field` and the lease while `workspace` holds a `shared_read` lease:
 * the refusal of every write (`fileUpload`, `uploadDirectory`).
 */
export function assertWritable(workspace: object, kind: string, field: string): void {
  const lease = heldSharedReadLease(workspace);
  if (lease === undefined) return;
  throw new WorkspaceError({
    code: 'FORBIDDEN',
    message:
      `${field}: this ${kind} workspace is held shared_read by "${lease.holderId}" ` +
      `(lease ${lease.leaseId}, since ${lease.acquiredAt}); release it or take an ` +
      'exclusive_write lease to write',
    details: {
      field,
      leaseId: lease.leaseId,
      holderId: lease.holderId,
      mode: lease.mode,
      since: lease.acquiredAt,
    },
  });
}

/** Remembers the session id `workspace`'s type described (or forgets it: `undefined`). */
export function recordDescribedSession(workspace: object, sessionId: string | undefined): void {
  if (sessionId === undefined) sessionByWorkspace.delete(workspace);
  else sessionByWorkspace.set(workspace, sessionId);
}

/** The session id `workspace`'s type described at its last `identity()`, if any. */
export function describedSession(workspace: object): string | undefined {
  return sessionByWorkspace.get(workspace);
}
