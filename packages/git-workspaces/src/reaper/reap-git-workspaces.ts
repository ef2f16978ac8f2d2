import { readdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { abortedError, type OccupyingHolder, WorkspaceError } from '@agent-workspace/core';
import { isProcessAlive } from '@agent-workspace/core/internal';
import {
  describeUnsavedWork,
  findUnsavedWork,
  hasUnsavedWork,
} from '../internal/find-unsaved-work.js';
import { projectDirectory, SAFE_SEGMENT, treePath } from '../internal/tree-layout.js';
import { removeDirectory, removeWorktree } from '../worktree/remove-worktree.js';
import { leaseTree, type TreeHold } from './lease-tree.js';
import { listOwnerRecords, type OwnerRecord, removeOwnerRecord } from './owner-record.js';
import { readProcessStartTime } from './read-process-start-time.js';

/** Options of {@link reapGitWorkspaces}. */
export interface ReapGitWorkspacesOptions {
  /** The managed root to sweep. */
  root: string;
  /** Directory of the occupancy lease records; default core's `defaultLeaseDir()`. */
  leaseDir?: string | undefined;
  /** Stops the sweep between trees; the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** Why a tree was kept. */
export type KeptReason =
  | 'owner-alive'
  | 'leased'
  | 'other-host'
  | 'uncommitted-work'
  | 'no-owner-record'
  | 'error';

/** A tree the reaper left in place. */
export interface KeptTree {
  path: string;
  projectId: string;
  sessionId: string;
  reason: KeptReason;
  /** Human-readable detail: the unsaved paths, the owner, the error. */
  detail: string;
}

/** A tree (or a stale owner record) the reaper removed. */
export interface ReapedTree {
  path: string;
  projectId: string;
  sessionId: string;
  kind: OwnerRecord['kind'];
  /** True when only the record was left (the tree's directory was already gone). */
  treeMissing: boolean;
}

/** What {@link reapGitWorkspaces} did. */
export interface ReapReport {
  removed: ReapedTree[];
  kept: KeptTree[];
}

/**
 * True when process `pid` still runs and, when `processStartTime` is given, is the same process
 * (a recycled pid does not count). Only meaningful on the record's host.
 */
async function isProcessOwnerAlive(pid: number, processStartTime: string | undefined) {
  if (!isProcessAlive(pid)) return false;
  if (processStartTime === undefined) return true;
  const startTime = await readProcessStartTime(pid);
  return startTime === undefined || startTime === processStartTime;
}

/**
 * The owner of `record` that still runs, described (`'creator pid 12'`, `'owner pid 34'`), or
 * `undefined` when neither the creating process nor a declared process owner runs. A declared
 * lease owner is alive while its lease is: the reaper sees it as a lease on the tree.
 */
export async function liveOwner(record: OwnerRecord): Promise<string | undefined> {
  if (await isProcessOwnerAlive(record.pid, record.processStartTime)) {
    return `creator pid ${record.pid}`;
  }
  const { owner } = record;
  if (owner?.type === 'process' && (await isProcessOwnerAlive(owner.pid, owner.processStartTime))) {
    return `declared owner pid ${owner.pid}`;
  }
  return undefined;
}

/** True when the creating process or a declared process owner of `record` still runs. */
export async function isOwnerAlive(record: OwnerRecord): Promise<boolean> {
  return (await liveOwner(record)) !== undefined;
}

/**
 * Sweeps a managed root: removes every tree whose owners are all gone and that nobody leases,
 * with its owner record. Owners are the creating process and the long-lived owner declared with
 * `declareTreeOwner` (a process, by pid and start time, or a lease holder); a process owner is
 * gone when its pid is dead or reused by another process, on this host. A tree with a live
 * occupancy lease on its directory (any workspace kind, any process) is kept (`'leased'`), and
 * a removal holds an `exclusive_write` lease on the tree meanwhile, so no one starts working in
 * it. A tree with uncommitted work (or, for a clone, unpushed commits) is kept too. A record whose
 * tree is already gone is removed. Everything kept is reported with the reason. Best effort: a
 * failure on one tree is reported (`'error'`) and the sweep goes on.
 */
export async function reapGitWorkspaces(options: ReapGitWorkspacesOptions): Promise<ReapReport> {
  const { root, leaseDir, signal } = options;
  const report: ReapReport = { removed: [], kept: [] };
  const projects = await readdir(root).catch(() => [] as string[]);
  const host = hostname();
  for (const projectId of projects.sort()) {
    if (!SAFE_SEGMENT.test(projectId)) continue;
    const records = await listOwnerRecords(root, projectId);
    const owned = new Set(records.map((record) => record.sessionId));
    for (const record of records) {
      if (signal?.aborted) throw abortedError(signal);
      const where = {
        path: treePath(root, projectId, record.sessionId),
        projectId,
        sessionId: record.sessionId,
      };
      try {
        if (record.hostname !== host) {
          report.kept.push({
            ...where,
            reason: 'other-host',
            detail: `owned on ${record.hostname}`,
          });
          continue;
        }
        const owner = await liveOwner(record);
        if (owner !== undefined) {
          report.kept.push({ ...where, reason: 'owner-alive', detail: owner });
          continue;
        }
        let hold: TreeHold;
        try {
          hold = await leaseTree({ path: where.path, operation: 'reap', leaseDir, signal });
        } catch (error) {
          if (!WorkspaceError.isInstance(error, 'WORKSPACE_OCCUPIED')) throw error;
          const declared = record.owner?.type === 'lease' ? record.owner.holderId : undefined;
          const holders = (error.details.holders ?? []) as OccupyingHolder[];
          const byOwner = holders.some((holder) => holder.holderId === declared);
          report.kept.push({
            ...where,
            reason: byOwner ? 'owner-alive' : 'leased',
            detail: byOwner ? `declared owner "${declared}" holds a lease` : error.message,
          });
          continue;
        }
        try {
          const exists = (await stat(where.path).catch(() => undefined)) !== undefined;
          if (exists) {
            const work = await findUnsavedWork({
              path: where.path,
              unpushedCommits: record.kind === 'clone',
              ignoreSymlinks: record.symlinks,
              signal,
            });
            if (hasUnsavedWork(work)) {
              report.kept.push({
                ...where,
                reason: 'uncommitted-work',
                detail: describeUnsavedWork(work),
              });
              continue;
            }
          }
          if (record.kind === 'worktree') {
            await removeWorktree({ projectPath: record.projectPath, path: where.path, signal });
          } else {
            await removeDirectory(where.path);
          }
          await removeOwnerRecord(root, projectId, record.sessionId);
          report.removed.push({ ...where, kind: record.kind, treeMissing: !exists });
        } finally {
          await hold.release();
        }
      } catch (error) {
        if (signal?.aborted) throw abortedError(signal);
        report.kept.push({ ...where, reason: 'error', detail: (error as Error).message });
      }
    }
    const entries = await readdir(projectDirectory(root, projectId)).catch(() => [] as string[]);
    for (const sessionId of entries.sort()) {
      if (!SAFE_SEGMENT.test(sessionId) || owned.has(sessionId)) continue;
      report.kept.push({
        path: treePath(root, projectId, sessionId),
        projectId,
        sessionId,
        reason: 'no-owner-record',
        detail: 'no owner record: not made by this package, or its record was lost',
      });
    }
  }
  return report;
}
