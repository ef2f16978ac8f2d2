import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceAccessMode } from '@agent-workspace/protocol';

/** How long released and recovered lease records are kept as history. */
export const LEASE_HISTORY_MS = 24 * 60 * 60 * 1000;

/**
 * One lease as recorded on disk (`<leaseDir>/<workspaceId>/<leaseId>.json`). The record is the
 * lease's history and the name of its holder; the lock itself is the holder's abstract socket.
 */
export interface LeaseRecord {
  leaseId: string;
  workspaceId: string;
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

/** The directory of one workspace's records. */
export function workspaceRecordDir(leaseDir: string, workspaceId: string): string {
  return path.join(leaseDir, workspaceId);
}

/** Writes `record` atomically (a private temporary file renamed over the record). */
export async function writeLeaseRecord(leaseDir: string, record: LeaseRecord): Promise<void> {
  const dir = workspaceRecordDir(leaseDir, record.workspaceId);
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

/** Every readable record of `workspaceId` (unreadable or foreign files are skipped). */
export async function readLeaseRecords(
  leaseDir: string,
  workspaceId: string,
): Promise<LeaseRecord[]> {
  const dir = workspaceRecordDir(leaseDir, workspaceId);
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
      if (record.workspaceId === workspaceId && `${record.leaseId}.json` === name) {
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
      const file = path.join(workspaceRecordDir(leaseDir, record.workspaceId), record.leaseId);
      await rm(`${file}.json`, { force: true });
    } else {
      kept.push(record);
    }
  }
  return kept;
}
