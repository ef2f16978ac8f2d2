import { readdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { abortedError } from '@agent-workspace/core';
import { isProcessAlive } from '@agent-workspace/core/internal';
import {
  describeUnsavedWork,
  findUnsavedWork,
  hasUnsavedWork,
} from '../internal/find-unsaved-work.js';
import { projectDirectory, SAFE_SEGMENT, treePath } from '../internal/tree-layout.js';
import { removeDirectory, removeWorktree } from '../worktree/remove-worktree.js';
import { listOwnerRecords, type OwnerRecord, removeOwnerRecord } from './owner-record.js';
import { readProcessStartTime } from './read-process-start-time.js';

/** Options of {@link reapGitWorkspaces}. */
export interface ReapGitWorkspacesOptions {
  /** The managed root to sweep. */
  root: string;
  /** Stops the sweep between trees; the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** Why a tree was kept. */
export type KeptReason =
  | 'owner-alive'
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
 * True when the owner named by `record` still runs: same pid alive and, where recorded, the same
 * start time (so a recycled pid does not count). Only meaningful on the record's host.
 */
export async function isOwnerAlive(record: OwnerRecord): Promise<boolean> {
  if (!isProcessAlive(record.pid)) return false;
  if (record.processStartTime === undefined) return true;
  const startTime = await readProcessStartTime(record.pid);
  return startTime === undefined || startTime === record.processStartTime;
}

/**
 * Sweeps a managed root: removes every tree whose owner process is gone (dead pid, or a pid
 * reused by another process, on this host) and that holds no uncommitted work (nor, for a
 * clone, unpushed commits), with its owner record; a record whose tree is already gone is
 * removed too. Everything else is reported as kept, with the reason. Best effort: a failure on
 * one tree is reported (`'error'`) and the sweep goes on.
 */
export async function reapGitWorkspaces(options: ReapGitWorkspacesOptions): Promise<ReapReport> {
  const { root, signal } = options;
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
        if (await isOwnerAlive(record)) {
          report.kept.push({ ...where, reason: 'owner-alive', detail: `owner pid ${record.pid}` });
          continue;
        }
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
