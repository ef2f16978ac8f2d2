import { abortedError } from '../errors/aborted-error.js';
import { forgetHeldLease, recordHeldLease } from '../workspace/occupancy-state.js';
import type { Workspace } from '../workspace/workspace.js';
import { assertLinux } from './assert-linux.js';
import { defaultLeaseDir, openLeaseDir } from './default-lease-dir.js';
import { identifyWorkspace } from './identify-workspace.js';
import { workspaceLeaseTarget } from './lease-key.js';
import { checkLeaseOptions, takeLease } from './take-lease.js';
import type { AcquireWorkspaceOptions, WorkspaceLease } from './workspace-lease.js';

export { MAX_HOLDER_ID_LENGTH } from './take-lease.js';

/**
 * Takes an occupancy lease on `workspace`, enforced across the processes of this machine (Linux
 * only): any number of `shared_read` holders at once, or one `exclusive_write` holder alone.
 *
 * - The lease is on the directory, not the workspace object or kind: a workspace of this machine
 *   (`local`, a git `worktree` or `clone`, any type that does not name its own id) is keyed by
 *   the real path of its execution root and this host name (`directoryLeaseTarget`), so a
 *   `LocalWorkspace` and a worktree workspace on one directory, or on two symlinked paths to it,
 *   contend for one lease, and so does `acquireDirectory` on that directory. A workspace that
 *   names its own id (remote, sandboxes) is keyed by its `workspaceId`.
 * - The lock is a Linux abstract unix socket named after that key
 *   (`agent-workspace/lease/<leaseKey>/...`): binding it fails while another socket holds it,
 *   and the kernel frees it when the holder's process dies, even by `SIGKILL`. A per-key guard
 *   socket serialises check-and-take (a busy guard is tried again for up to 10 s).
 * - Each lease is also a JSON record in `<leaseDir>/<leaseKey>/` (holder, mode, pid, hostname,
 *   workspaceId, directory, acquiredAt, then releasedAt) kept a day as history. A record without
 *   `releasedAt` whose socket is free belongs to a dead holder: it is marked `recoveredAt`. A
 *   live holder's record is never touched.
 * - While the workspace object holds a `shared_read` lease, its `fileUpload` rejects with
 *   `FORBIDDEN` and its `identity()` reports `accessMode: 'shared_read'`. Commands are not
 *   confined by a lease: a reader's commands could still write.
 * - Sockets live in the network namespace: processes in another one (a container, a sandbox
 *   without network) do not see them. A remote workspace's leases bind only the processes of
 *   this machine that lease it.
 *
 * @throws WorkspaceError `WORKSPACE_OCCUPIED` naming the holder(s) that refuse the lease;
 *   `NOT_SUPPORTED` off Linux; `INVALID_ARGUMENT`; `ABORTED`; `RESOURCE_EXHAUSTED` when the
 *   guard stays busy; `FORBIDDEN` when `leaseDir` is not this user's directory.
 *
 * @example
 * ```ts
 * await using lease = await acquireWorkspace(workspace, { holderId: 'agent-1', mode: 'exclusive_write' });
 * ```
 */
export async function acquireWorkspace(
  workspace: Workspace,
  options: AcquireWorkspaceOptions,
): Promise<WorkspaceLease> {
  assertLinux();
  checkLeaseOptions(options);
  const { holderId, mode, signal } = options;
  if (signal?.aborted) throw abortedError(signal);
  const leaseDir = await openLeaseDir(options.leaseDir ?? defaultLeaseDir());
  const identity = await identifyWorkspace(workspace, signal);
  const target = await workspaceLeaseTarget(workspace, identity);
  const lease = await takeLease({
    target,
    workspaceId: identity.workspaceId,
    anchor: identity.anchor,
    holderId,
    mode,
    leaseDir,
    signal,
  });
  const { leaseId } = lease;
  recordHeldLease(workspace, {
    leaseId,
    holderId,
    mode,
    pid: process.pid,
    acquiredAt: lease.acquiredAt,
  });
  const release = (): Promise<void> => {
    forgetHeldLease(workspace, leaseId);
    return lease.release();
  };
  return { ...lease, release, [Symbol.asyncDispose]: release };
}
