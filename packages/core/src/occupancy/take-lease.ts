import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import os from 'node:os';
import type { WorkspaceAccessMode } from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { withLeaseGuard } from './lease-guard.js';
import type { LeaseTarget } from './lease-key.js';
import { type LeaseRecord, writeLeaseRecord } from './lease-record.js';
import { bindAbstractSocket, closeAbstractSocket, leaseSocketNames } from './lease-socket.js';
import { occupiedError } from './occupied-error.js';
import { holderSocketName, surveyLeases } from './survey-leases.js';
import type { AcquireWorkspaceOptions, WorkspaceLease } from './workspace-lease.js';

/** Longest `holderId`, in characters. */
export const MAX_HOLDER_ID_LENGTH = 256;

/** Throws `INVALID_ARGUMENT` naming the bad field of lease options. */
export function checkLeaseOptions(options: AcquireWorkspaceOptions): void {
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

/** Input of {@link takeLease}. */
export interface TakeLeaseOptions {
  target: LeaseTarget;
  /** The leased workspace's id (the lease key for a bare directory). */
  workspaceId: string;
  /** What refusals call the leased thing. */
  anchor: string;
  holderId: string;
  mode: WorkspaceAccessMode;
  /** An opened lease directory. */
  leaseDir: string;
  signal?: AbortSignal | undefined;
  /**
   * Leases of this process that do not refuse this one (a workspace's own leases when it
   * destroys its tree). An excepted `exclusive_write` lease keeps the lock: this lease then
   * binds only its holder socket, which still refuses everyone else.
   */
  exceptLeaseIds?: ReadonlySet<string> | undefined;
}

/**
 * Checks and takes a lease under the key's guard (see `acquireWorkspace`), writes its record and
 * returns it with a release that records `releasedAt` and frees the sockets.
 */
export async function takeLease(options: TakeLeaseOptions): Promise<WorkspaceLease> {
  const { target, workspaceId, anchor, holderId, mode, leaseDir, signal } = options;
  const except = options.exceptLeaseIds ?? new Set<string>();
  const { leaseKey, directory } = target;
  const names = leaseSocketNames(leaseKey);
  const leaseId = randomBytes(16).toString('hex');
  const refuse = (conflicts: Parameters<typeof occupiedError>[0]['conflicts']) =>
    occupiedError({ workspaceId, anchor, leaseKey, directory, wanted: mode, conflicts, leaseDir });

  const { record, sockets } = await withLeaseGuard({ leaseKey, signal }, async () => {
    const { live } = await surveyLeases({ leaseDir, leaseKey });
    const others = live.filter((lease) => lease.leaseId === null || !except.has(lease.leaseId));
    const conflicts =
      mode === 'exclusive_write'
        ? others
        : others.filter((lease) => lease.mode === 'exclusive_write');
    if (conflicts.length > 0) throw refuse(conflicts);
    if (signal?.aborted) throw abortedError(signal);
    const record: LeaseRecord = {
      leaseId,
      leaseKey,
      workspaceId,
      ...(directory === undefined ? {} : { directory }),
      holderId,
      mode,
      pid: process.pid,
      hostname: os.hostname(),
      acquiredAt: new Date().toISOString(),
    };
    const lockHeldByExcepted = live.some(
      (lease) =>
        lease.mode === 'exclusive_write' && lease.leaseId !== null && except.has(lease.leaseId),
    );
    const wanted =
      mode === 'exclusive_write' && !lockHeldByExcepted
        ? [names.write, holderSocketName(names, record)]
        : [holderSocketName(names, record)];
    const sockets: net.Server[] = [];
    try {
      for (const name of wanted) {
        const socket = await bindAbstractSocket(name);
        if (socket === undefined) {
          // Taken by someone who does not take the guard first: still a refusal.
          throw refuse([{ leaseId: null, mode: 'exclusive_write', record: undefined }]);
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

  let releasing: Promise<void> | undefined;
  const release = async (): Promise<void> => {
    const end = async () => {
      await writeLeaseRecord(leaseDir, { ...record, releasedAt: new Date().toISOString() });
      await Promise.all(sockets.map(closeAbstractSocket));
    };
    try {
      await withLeaseGuard({ leaseKey }, end);
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
    leaseKey,
    workspaceId,
    directory,
    holderId,
    mode,
    acquiredAt: record.acquiredAt,
    release: releaseOnce,
    [Symbol.asyncDispose]: releaseOnce,
  };
}
