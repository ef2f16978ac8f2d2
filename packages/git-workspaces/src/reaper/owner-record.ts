import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import { z } from 'zod';
import { ownerRecordPath, ownersDirectory, parseTreePath } from '../internal/tree-layout.js';
import { readProcessStartTime } from './read-process-start-time.js';

/** What a managed tree is: a linked worktree of the project, or a full clone. */
export type GitWorkspaceKind = 'worktree' | 'clone';

/**
 * A long-lived owner declared for a tree, other than the process that made it (an
 * orchestrator's `spawn` exits while its agent keeps working in tmux): a process named by pid
 * and start time, or the holder id of an occupancy lease on the tree.
 */
export const declaredOwnerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('process'),
    pid: z.number().int().positive(),
    /** Field 22 of `/proc/<pid>/stat`, so a recycled pid does not count. */
    processStartTime: z.string().optional(),
  }),
  z.object({
    type: z.literal('lease'),
    /** The `holderId` of a live lease on the tree's directory. */
    holderId: z.string().min(1),
  }),
]);

/** A declared owner, as stored. */
export type DeclaredOwner = z.output<typeof declaredOwnerSchema>;

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
  /** A long-lived owner besides the creating process (see {@link declareTreeOwner}). */
  owner: declaredOwnerSchema.optional(),
});

/** An owner record, as stored. */
export type OwnerRecord = z.output<typeof ownerRecordSchema>;

/** Fields of a new owner record; the owner is this process (and `owner`, when declared). */
export type NewOwnerRecord = Pick<
  OwnerRecord,
  'kind' | 'path' | 'projectId' | 'sessionId' | 'branch' | 'projectPath' | 'symlinks' | 'owner'
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

/** Replaces a tree's owner record atomically (temp file + rename). */
async function rewriteOwnerRecord(root: string, record: OwnerRecord): Promise<void> {
  const file = ownerRecordPath(root, record.projectId, record.sessionId);
  const temporary = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** Options of {@link declareTreeOwner}. */
export interface DeclareTreeOwnerOptions {
  /** The managed root. */
  root: string;
  /** The managed tree (`<root>/<projectId>/<sessionId>`). */
  path: string;
  /**
   * The long-lived owner: `{ type: 'process', pid }` (its start time is read now unless given)
   * or `{ type: 'lease', holderId }`; `undefined` clears the declaration.
   */
  owner: DeclaredOwner | undefined;
}

/**
 * Declares who owns a tree besides the process that made it, in its owner record: the reaper
 * keeps the tree while that owner lives (the process runs with the same start time, or a lease
 * of that holder id on the tree is live), even after the creating process exited.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `owner` (a bad shape, or a process that does
 *   not run), `FORBIDDEN` (field `path`) outside the root, `NOT_FOUND` without an owner record.
 */
export async function declareTreeOwner(options: DeclareTreeOwnerOptions): Promise<OwnerRecord> {
  const { root, path: target } = options;
  const { projectId, sessionId } = parseTreePath(root, target);
  let owner: DeclaredOwner | undefined;
  if (options.owner !== undefined) {
    const parsed = declaredOwnerSchema.safeParse(options.owner);
    if (!parsed.success) {
      throw invalidArgument('owner', parsed.error.issues.map((issue) => issue.message).join('; '));
    }
    owner = parsed.data;
    if (owner.type === 'process' && owner.processStartTime === undefined) {
      const processStartTime = await readProcessStartTime(owner.pid);
      if (processStartTime === undefined) {
        throw invalidArgument('owner.pid', `no process ${owner.pid} runs on this host`);
      }
      owner = { ...owner, processStartTime };
    }
  }
  const record = await readOwnerRecord(root, projectId, sessionId);
  if (!record) {
    throw new WorkspaceError({
      code: 'NOT_FOUND',
      message: `${target} has no owner record: not a tree this package made`,
      details: { field: 'path', path: target },
    });
  }
  const { owner: _previous, ...rest } = record;
  const updated: OwnerRecord = owner === undefined ? rest : { ...rest, owner };
  await rewriteOwnerRecord(root, updated);
  return updated;
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
  await rewriteOwnerRecord(root, {
    ...record,
    symlinks: [...new Set([...record.symlinks, ...symlinks])],
  });
}
