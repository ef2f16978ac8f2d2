import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceAccessMode } from '@agent-workspace/protocol';

/** How long released and recovered lease records are kept as history. */
export const LEASE_HISTORY_MS = 24 * 60 * 60 * 1000;

/**
 * One lease as recorded on disk (`<leaseDir>/<leaseKey>/<leaseId>.json`). The record is the
 * lease's history and the name of its holder; the lock itself is the holder's abstract socket.
 */
export interface LeaseRecord {
  leaseId: string;
  /** What the lease is keyed by (see `directoryLeaseTarget`): names its sockets and directory. */
  leaseKey: string;
  /** The `workspaceId` of the leased workspace (the `leaseKey` for a bare directory's lease). */
  workspaceId: string;
  /** The real path of the leased directory; absent for a remote workspace's lease. */
  directory?: string | undefined;
  holderId: string;
  mode: WorkspaceAccessMode;
  /** Process that holds (held) the lease. */
  pid: number;
  hostname: string;
  /** ISO 8601 timestamps. */
  acquiredAt: string;
  /** Set by the holder's `release()`. */
  releasedAt?: string | undefined;
  /** Set by another process that found the holder dead (its socket free, no `releasedAt`). */
  recoveredAt?: string | undefined;
}

/** True while a record claims a holder: neither released nor recovered. */
export function isOpenRecord(record: LeaseRecord): boolean {
  return record.releasedAt === undefined && record.recoveredAt === undefined;
}

/** The directory of one lease key's records. */
export function leaseRecordDir(leaseDir: string, leaseKey: string): string {
  return path.join(leaseDir, leaseKey);
}

/** Writes `record` atomically (a private temporary file renamed over the record). */
export async function writeLeaseRecord(leaseDir: string, record: LeaseRecord): Promise<void> {
  const dir = leaseRecordDir(leaseDir, record.leaseKey);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = path.join(dir, `${record.leaseId}.json`);
  const temporary = path.join(dir, `.${record.leaseId}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Every readable record of `leaseKey` (unreadable or foreign files are skipped). */
export async function readLeaseRecords(leaseDir: string, leaseKey: string): Promise<LeaseRecord[]> {
  const dir = leaseRecordDir(leaseDir, leaseKey);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: LeaseRecord[] = [];
  for (const name of names) {
    if (!/^[0-9a-f]{32}\.json$/.test(name)) continue;
    try {
      const record = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as LeaseRecord;
      if (record.leaseKey === leaseKey && `${record.leaseId}.json` === name) {
        records.push(record);
      }
    } catch {
      // A record being replaced or damaged: its socket still decides whether it is held.
    }
  }
  return records;
}

/** Deletes released and recovered records older than {@link LEASE_HISTORY_MS}. */
export async function pruneLeaseRecords(
  leaseDir: string,
  records: readonly LeaseRecord[],
  now: number,
): Promise<LeaseRecord[]> {
  const kept: LeaseRecord[] = [];
  for (const record of records) {
    const ended = record.releasedAt ?? record.recoveredAt;
    if (ended !== undefined && now - Date.parse(ended) > LEASE_HISTORY_MS) {
      const file = path.join(leaseRecordDir(leaseDir, record.leaseKey), record.leaseId);
      await rm(`${file}.json`, { force: true });
    } else {
      kept.push(record);
    }
  }
  return kept;
}
