import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ownerRecordPath, ownersDirectory } from '../internal/tree-layout.js';
import { readProcessStartTime } from './read-process-start-time.js';

/** What a managed tree is: a linked worktree of the project, or a full clone. */
export type GitWorkspaceKind = 'worktree' | 'clone';

/** The owner record kept next to every managed tree. */
export const ownerRecordSchema = z.object({
  version: z.literal(1),
  kind: z.enum(['worktree', 'clone']),
  /** Absolute path of the tree. */
  path: z.string(),
  projectId: z.string(),
  sessionId: z.string(),
  branch: z.string(),
  /** The project repository the tree came from. */
  projectPath: z.string(),
  /** Post-create symlinks (relative paths): not counted as uncommitted work. */
  symlinks: z.array(z.string()).default([]),
  pid: z.number().int(),
  hostname: z.string(),
  /** Field 22 of `/proc/<pid>/stat`; absent off Linux. */
  processStartTime: z.string().optional(),
  createdAt: z.string(),
});

/** An owner record, as stored. */
export type OwnerRecord = z.output<typeof ownerRecordSchema>;

/** Fields of a new owner record; the owner is this process. */
export type NewOwnerRecord = Pick<
  OwnerRecord,
  'kind' | 'path' | 'projectId' | 'sessionId' | 'branch' | 'projectPath' | 'symlinks'
>;

/**
 * Writes (atomically: temp file + rename) the owner record of a tree, naming this process
 * (pid, hostname, start time) as its owner. Returns the record.
 */
export async function writeOwnerRecord(root: string, fields: NewOwnerRecord): Promise<OwnerRecord> {
  const record: OwnerRecord = {
    version: 1,
    ...fields,
    pid: process.pid,
    hostname: hostname(),
    processStartTime: await readProcessStartTime(process.pid),
    createdAt: new Date().toISOString(),
  };
  const file = ownerRecordPath(root, fields.projectId, fields.sessionId);
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
  return record;
}

/** Reads a tree's owner record; `undefined` when missing or unreadable. */
export async function readOwnerRecord(
  root: string,
  projectId: string,
  sessionId: string,
): Promise<OwnerRecord | undefined> {
  const text = await readFile(ownerRecordPath(root, projectId, sessionId), 'utf8').catch(
    () => undefined,
  );
  if (text === undefined) return undefined;
  try {
    const parsed = ownerRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Reads every readable owner record of a project. */
export async function listOwnerRecords(root: string, projectId: string): Promise<OwnerRecord[]> {
  const names = await readdir(ownersDirectory(root, projectId)).catch(() => [] as string[]);
  const records: OwnerRecord[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const record = await readOwnerRecord(root, projectId, name.slice(0, -'.json'.length));
    if (record) records.push(record);
  }
  return records;
}

/** Removes a tree's owner record (nothing when missing). */
export async function removeOwnerRecord(
  root: string,
  projectId: string,
  sessionId: string,
): Promise<void> {
  await rm(ownerRecordPath(root, projectId, sessionId), { force: true });
}

/**
 * Adds `symlinks` (post-create links, relative paths) to a tree's owner record, keeping its
 * owner; nothing when the record is missing.
 */
export async function addOwnerSymlinks(
  root: string,
  projectId: string,
  sessionId: string,
  symlinks: readonly string[],
): Promise<void> {
  const record = await readOwnerRecord(root, projectId, sessionId);
  if (!record || symlinks.length === 0) return;
  const merged = { ...record, symlinks: [...new Set([...record.symlinks, ...symlinks])] };
  const file = ownerRecordPath(root, projectId, sessionId);
  const temporary = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}
