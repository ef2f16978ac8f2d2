import path from 'node:path';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { heldSharedReadLease } from './occupancy-state.js';

/**
 * A caller-side directory of a `DirectoryTransfer` call, resolved against the process's cwd;
 * `INVALID_ARGUMENT` naming `field` when empty or holding a NUL byte.
 */
export function callerDirectory(target: string, field: string): string {
  if (typeof target !== 'string' || target.length === 0) {
    throw invalidArgument(field, 'must be a non-empty string');
  }
  if (target.includes('\0')) throw invalidArgument(field, 'must not contain NUL bytes');
  return path.resolve(target);
}

/**
 * Refuses `uploadDirectory` with `FORBIDDEN` naming the lease while `workspace` holds a
 * shared-read occupancy lease, as `fileUpload` does.
 */
export function assertDirectoryWritable(workspace: object, kind: string): void {
  const lease = heldSharedReadLease(workspace);
  if (lease === undefined) return;
  throw new WorkspaceError({
    code: 'FORBIDDEN',
    message:
      `destinationDir: this ${kind} workspace is held shared_read by "${lease.holderId}" ` +
      `(lease ${lease.leaseId}, since ${lease.acquiredAt}); release it or take an ` +
      'exclusive_write lease to write',
    details: {
      field: 'destinationDir',
      leaseId: lease.leaseId,
      holderId: lease.holderId,
      mode: lease.mode,
      since: lease.acquiredAt,
    },
  });
}
