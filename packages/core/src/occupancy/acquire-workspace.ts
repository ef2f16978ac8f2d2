import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import os from 'node:os';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { forgetHeldLease, recordHeldLease } from '../workspace/occupancy-state.js';
import type { Workspace } from '../workspace/workspace.js';
import { assertLinux } from './assert-linux.js';
import { defaultLeaseDir, openLeaseDir } from './default-lease-dir.js';
import { identifyWorkspace } from './identify-workspace.js';
import { withLeaseGuard } from './lease-guard.js';
import { type LeaseRecord, writeLeaseRecord } from './lease-record.js';
import { bindAbstractSocket, closeAbstractSocket, leaseSocketNames } from './lease-socket.js';
import { occupiedError } from './occupied-error.js';
import { holderSocketName, surveyLeases } from './survey-leases.js';
import type { AcquireWorkspaceOptions, WorkspaceLease } from './workspace-lease.js';

/** Longest `holderId`, in characters. */
export const MAX_HOLDER_ID_LENGTH = 256;

function checkOptions(options: AcquireWorkspaceOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('options', 'must be an object with holderId and mode');
  }
  const { holderId, mode } = options;
  if (typeof holderId !== 'string' || holderId.trim().length === 0) {
    throw invalidArgument('holderId', 'must be a non-empty string');
  }
  if (holderId.length > MAX_HOLDER_ID_LENGTH || holderId.includes('\0')) {
    throw invalidArgument('holderId', `must be at most ${MAX_HOLDER_ID_LENGTH} characters, no NUL`);
  }
  if (mode !== 'shared_read' && mode !== 'exclusive_write') {
    throw invalidArgument('mode', 'must be "shared_read" or "exclusive_write"');
  }
}

/**
 * Takes an occupancy lease on `workspace`, enforced across the processes of this machine (Linux
 * only): any number of `shared_read` holders at once, or one `exclusive_write` holder alone.
 *
 * - The lock is a Linux abstract unix socket named after the identity's `workspaceId`
 *   (`agent-workspace/lease/<workspaceId>/...`): binding it fails while another socket holds it,
 *   and the kernel frees it when the holder's process dies, even by `SIGKILL`. A per-workspace
 *   guard socket serialises check-and-take (a busy guard is tried again for up to 10 s).
 * - Each lease is also a JSON record in `leaseDir` (holder, mode, pid, hostname, acquiredAt,
 *   then releasedAt) kept a day as history. A record without `releasedAt` whose socket is free
 *   belongs to a dead holder: it is marked `recoveredAt`. A live holder's record is never
 *   touched.
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
  checkOptions(options);
  const { holderId, mode, signal } = options;
  if (signal?.aborted) throw abortedError(signal);
  const leaseDir = await openLeaseDir(options.leaseDir ?? defaultLeaseDir());
  const identity = await identifyWorkspace(workspace, signal);
  const { workspaceId, anchor } = identity;
  const names = leaseSocketNames(workspaceId);
  const leaseId = randomBytes(16).toString('hex');

  const { record, sockets } = await withLeaseGuard({ workspaceId, signal }, async () => {
    const { live } = await surveyLeases({ leaseDir, workspaceId });
    const conflicts =
      mode === 'exclusive_write' ? live : live.filter((lease) => lease.mode === 'exclusive_write');
    if (conflicts.length > 0) {
      throw occupiedError({ workspaceId, anchor, wanted: mode, conflicts, leaseDir });
    }
    if (signal?.aborted) throw abortedError(signal);
    const record: LeaseRecord = {
      leaseId,
      workspaceId,
      holderId,
      mode,
      pid: process.pid,
      hostname: os.hostname(),
      acquiredAt: new Date().toISOString(),
    };
    const wanted =
      mode === 'exclusive_write'
        ? [names.write, holderSocketName(names, record)]
        : [holderSocketName(names, record)];
    const sockets: net.Server[] = [];
    try {
      for (const name of wanted) {
        const socket = await bindAbstractSocket(name);
        if (socket === undefined) {
          // Taken by someone who does not take the guard first: still a refusal.
          throw occupiedError({
            workspaceId,
            anchor,
            wanted: mode,
            conflicts: [{ leaseId: null, mode: 'exclusive_write', record: undefined }],
            leaseDir,
          });
        }
        sockets.push(socket);
      }
      await writeLeaseRecord(leaseDir, record);
    } catch (error) {
      await Promise.all(sockets.map(closeAbstractSocket));
      throw error;
    }
    return { record, sockets };
  });

  recordHeldLease(workspace, {
    leaseId,
    holderId,
    mode,
    pid: record.pid,
    acquiredAt: record.acquiredAt,
  });
  let releasing: Promise<void> | undefined;
  const release = async (): Promise<void> => {
    forgetHeldLease(workspace, leaseId);
    const end = async () => {
      await writeLeaseRecord(leaseDir, { ...record, releasedAt: new Date().toISOString() });
      await Promise.all(sockets.map(closeAbstractSocket));
    };
    try {
      await withLeaseGuard({ workspaceId }, end);
    } catch (error) {
      // Never keep the lock because the guard or the record failed: free it, then report.
      await Promise.all(sockets.map(closeAbstractSocket));
      throw error;
    }
  };
  const releaseOnce = (): Promise<void> => {
    releasing ??= release();
    return releasing;
  };
  return {
    leaseId,
    workspaceId,
    holderId,
    mode,
    acquiredAt: record.acquiredAt,
    release: releaseOnce,
    [Symbol.asyncDispose]: releaseOnce,
  };
}
