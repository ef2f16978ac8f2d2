import type { WorkspaceAccessMode } from '@agent-workspace/protocol';
import {
  isOpenRecord,
  type LeaseRecord,
  pruneLeaseRecords,
  readLeaseRecords,
  writeLeaseRecord,
} from './lease-record.js';
import {
  isSocketNameHeld,
  type LeaseSocketNames,
  leaseSocketNames,
  listAbstractSocketNames,
} from './lease-socket.js';

/** A lease whose holder is alive. */
export interface LiveLease {
  leaseId: string | null;
  mode: WorkspaceAccessMode;
  /** The holder's record in this lease directory; `undefined` when it has none here. */
  record: LeaseRecord | undefined;
}

/** What {@link surveyLeases} found. */
export interface LeaseSurvey {
  /** Leases whose holders are alive. */
  live: LiveLease[];
  /** Records of dead holders, now marked `recoveredAt`. */
  recovered: LeaseRecord[];
}

/** Options of {@link surveyLeases}. */
export interface SurveyLeasesOptions {
  leaseDir: string;
  leaseKey: string;
}

/** The socket whose binding says a record's holder is alive. */
export function holderSocketName(names: LeaseSocketNames, record: LeaseRecord): string {
  const prefix = record.mode === 'exclusive_write' ? names.writerPrefix : names.readPrefix;
  return `${prefix}${record.leaseId}`;
}

/**
 * Who holds the lease key's leases, decided by the sockets, not the records: an open record
 * whose holder socket is free belongs to a dead holder and is marked `recoveredAt` (a live
 * holder's record is never touched); a held socket without a record here (its holder keeps
 * records in another lease directory) still counts. Old history is pruned. Call it under the
 * key's guard ({@link withLeaseGuard}).
 */
export async function surveyLeases({
  leaseDir,
  leaseKey,
}: SurveyLeasesOptions): Promise<LeaseSurvey> {
  const names = leaseSocketNames(leaseKey);
  const now = Date.now();
  const records = await pruneLeaseRecords(
    leaseDir,
    await readLeaseRecords(leaseDir, leaseKey),
    now,
  );
  const live: LiveLease[] = [];
  const recovered: LeaseRecord[] = [];
  for (const record of records.filter(isOpenRecord)) {
    if (await isSocketNameHeld(holderSocketName(names, record))) {
      live.push({ leaseId: record.leaseId, mode: record.mode, record });
    } else {
      const marked = { ...record, recoveredAt: new Date(now).toISOString() };
      await writeLeaseRecord(leaseDir, marked);
      recovered.push(marked);
    }
  }
  const known = new Set(live.map((lease) => lease.leaseId));
  for (const [prefix, mode] of [
    [names.readPrefix, 'shared_read'],
    [names.writerPrefix, 'exclusive_write'],
  ] as const) {
    for (const name of await listAbstractSocketNames(prefix)) {
      const leaseId = name.slice(prefix.length);
      if (known.has(leaseId) || !(await isSocketNameHeld(name))) continue;
      live.push({ leaseId, mode, record: undefined });
      known.add(leaseId);
    }
  }
  if (!live.some((lease) => lease.mode === 'exclusive_write')) {
    if (await isSocketNameHeld(names.write)) {
      live.push({ leaseId: null, mode: 'exclusive_write', record: undefined });
    }
  }
  return { live, recovered };
}
