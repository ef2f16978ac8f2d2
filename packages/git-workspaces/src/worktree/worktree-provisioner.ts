import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { resolveStartPoint } from '../internal/resolve-start-point.js';
import { runGitRetryingLocks } from '../internal/retry-git-lock.js';
import { gitError, gitOrThrow, runGit } from '../internal/run-git.js';
import { serialisePerRepository } from '../internal/serialise-per-repository.js';
import { projectDirectory, SAFE_SEGMENT } from '../internal/tree-layout.js';
import {
  type MakeTreeContext,
  ManagedTreeProvisioner,
  type TreeLocation,
} from '../provisioner/managed-tree-provisioner.js';
import type { ProvisionConfig, WorkspaceInfo } from '../provisioner/workspace-provisioner.js';
import { listOwnerRecords } from '../reaper/owner-record.js';
import { addWorktreeBranch } from './add-worktree-branch.js';
import { parseWorktreePorcelain, shortBranchName } from './parse-worktree-porcelain.js';
import { removeDirectory, removeWorktree, removeWorktreeIfClean } from './remove-worktree.js';

/**
 * Linked worktrees of the project (`git worktree add --no-checkout -b <branch> <path> <start>`,
 * then `git checkout` in the tree): cheap, sharing the project's object store and refs, one
 * branch each. `<start>` is `origin/<defaultBranch>` after a fetch, else the local default
 * branch. `worktree add/remove/prune` run one at a time per repository in this process (the
 * checkout of the files does not), and git's lock errors are retried, so many parallel creates
 * and destroys leave `.git/worktrees` consistent.
 *
 * @example
 * ```ts
 * const worktrees = new WorktreeProvisioner({ root: '/tmp/trees' });
 * const info = await worktrees.create({
 *   projectId: 'app', sessionId: 'agent-1', branch: 'agent-1/fix',
 *   project: { path: '/src/app', defaultBranch: 'main' },
 * });
 * await worktrees.destroy(info.path);
 * ```
 */
export class WorktreeProvisioner extends ManagedTreeProvisioner {
  readonly name = 'worktree' as const;
  /** Projects this instance made trees of, by project id (owner records name the others). */
  readonly #projects = new Map<string, Set<string>>();

  protected async makeTree(
    config: ProvisionConfig,
    target: string,
    { originUrl, signal }: MakeTreeContext,
  ): Promise<string[]> {
    const projectPath = config.project.path;
    const defaultBranch = config.project.defaultBranch;
    this.#remember(config.projectId, projectPath);
    const start = await resolveStartPoint({
      projectPath,
      defaultBranch,
      originUrl,
      fetch: config.project.fetch,
      signal,
    });
    await addWorktreeBranch({
      projectPath,
      branch: config.branch,
      path: target,
      startPoint: start.from === 'origin' ? `refs/remotes/origin/${defaultBranch}` : defaultBranch,
      branchExists: () =>
        new WorkspaceError({
          code: 'ALREADY_EXISTS',
          message: `branch "${config.branch}" already exists in ${projectPath}; use restore() to bring back its tree`,
          details: { field: 'branch', branch: config.branch },
        }),
      signal,
    });
    // The tree's files, outside the project's queue (the tree's own index is its own).
    await gitOrThrow(['checkout', '-q', '-f', 'HEAD'], { cwd: target, signal });
    return start.warnings;
  }

  protected async removeTree(location: TreeLocation, signal?: AbortSignal): Promise<void> {
    const projectPath = location.projectPath ?? (await discoverProject(location.path, signal));
    if (projectPath === undefined) {
      // Not a worktree of anything: a directory under the managed root.
      await removeDirectory(location.path);
      return;
    }
    await removeWorktree({ projectPath, path: location.path, signal });
  }

  /** git's own clean check of `git worktree remove` (one call instead of status + remove). */
  protected override async removeTreeIfClean(
    location: TreeLocation,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (location.projectPath === undefined) return false;
    return removeWorktreeIfClean({
      projectPath: location.projectPath,
      path: location.path,
      signal,
    });
  }

  protected async listTrees(projectId: string): Promise<WorkspaceInfo[]> {
    const projects = new Set(this.#projects.get(projectId));
    for (const record of await listOwnerRecords(this.root, projectId)) {
      if (record.kind === 'worktree') projects.add(record.projectPath);
    }
    const directory = projectDirectory(this.root, projectId);
    const directories = new Set([directory, await realpath(directory).catch(() => directory)]);
    const found = new Map<string, WorkspaceInfo>();
    for (const projectPath of projects) {
      if (!(await stat(projectPath).catch(() => undefined))) continue;
      const output = await gitOrThrow(['worktree', 'list', '--porcelain', '-z'], {
        cwd: projectPath,
      });
      for (const record of parseWorktreePorcelain(output)) {
        const parent = path.dirname(record.path);
        const sessionId = path.basename(record.path);
        if (!directories.has(parent) || !SAFE_SEGMENT.test(sessionId) || record.bare) continue;
        found.set(sessionId, {
          path: path.join(directory, sessionId),
          branch: record.branch ? shortBranchName(record.branch) : (record.head ?? ''),
          sessionId,
          projectId,
          ...(record.detached && { detached: true }),
          ...(record.locked !== undefined && { locked: record.locked }),
          ...(record.prunable !== undefined && { prunable: record.prunable }),
        });
      }
    }
    return [...found.values()].sort((a, b) => a.sessionId.localeCompare(b.sessionId));
  }

  protected async restoreTree(config: ProvisionConfig, target: string): Promise<void> {
    const projectPath = config.project.path;
    this.#remember(config.projectId, projectPath);
    await serialisePerRepository(projectPath, async () => {
      const prune = await runGitRetryingLocks(['worktree', 'prune'], { cwd: projectPath });
      if (prune.exitCode !== 0) throw gitError(['worktree', 'prune'], projectPath, prune);
      const branch = await runGit(
        ['rev-parse', '--verify', '--quiet', `refs/heads/${config.branch}`],
        {
          cwd: projectPath,
        },
      );
      if (branch.exitCode !== 0) {
        throw new WorkspaceError({
          code: 'NOT_FOUND',
          message: `branch "${config.branch}" does not exist in ${projectPath}: nothing to restore`,
          details: { field: 'branch', branch: config.branch },
        });
      }
      const listed = parseWorktreePorcelain(
        await gitOrThrow(['worktree', 'list', '--porcelain', '-z'], { cwd: projectPath }),
      );
      const real = await realpath(target).catch(() => target);
      const registered = listed.find((record) => record.path === target || record.path === real);
      if (registered && registered.branch === `refs/heads/${config.branch}`) return;
      if (registered || (await stat(target).catch(() => undefined))) {
        throw new WorkspaceError({
          code: 'ALREADY_EXISTS',
          message: `${target} exists and is not the worktree of branch "${config.branch}"`,
          details: { field: 'path', path: target },
        });
      }
      const args = ['worktree', 'add', '-q', target, config.branch];
      const added = await runGitRetryingLocks(args, { cwd: projectPath });
      if (added.exitCode !== 0) throw gitError(args, projectPath, added);
    });
  }

  #remember(projectId: string, projectPath: string): void {
    const known = this.#projects.get(projectId) ?? new Set<string>();
    known.add(projectPath);
    this.#projects.set(projectId, known);
  }
}

/** The main work tree of the repository `tree` is a worktree of; `undefined` when none. */
async function discoverProject(tree: string, signal?: AbortSignal): Promise<string | undefined> {
  if (!(await stat(tree).catch(() => undefined))) return undefined;
  const result = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: tree,
    signal,
  });
  if (result.exitCode !== 0) return undefined;
  const common = result.stdout.trim();
  return path.basename(common) === '.git' ? path.dirname(common) : undefined;
}
