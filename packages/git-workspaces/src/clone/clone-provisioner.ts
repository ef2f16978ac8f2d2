import { stat } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { gitOrThrow, runGit } from '../internal/run-git.js';
import { projectDirectory } from '../internal/tree-layout.js';
import {
  ManagedTreeProvisioner,
  type TreeLocation,
} from '../provisioner/managed-tree-provisioner.js';
import type { ProvisionConfig, WorkspaceInfo } from '../provisioner/workspace-provisioner.js';
import { listOwnerRecords } from '../reaper/owner-record.js';
import { removeDirectory } from '../worktree/remove-worktree.js';

/**
 * Full, independent clones of the project: `git clone --local` (hard links when the root is on
 * the project's file system) or `--reference` + `--dissociate` when not, then
 * `git checkout -b <branch> origin/<defaultBranch>`. A clone has its own `.git` (no alternates),
 * so it keeps working when the project is deleted. Unpushed commits count as unsaved work.
 *
 * @example
 * ```ts
 * const clones = new CloneProvisioner({ root: '/tmp/trees' });
 * const info = await clones.create({
 *   projectId: 'app', sessionId: 'agent-2', branch: 'agent-2/try',
 *   project: { path: '/src/app', defaultBranch: 'main' },
 * });
 * ```
 */
export class CloneProvisioner extends ManagedTreeProvisioner {
  readonly name = 'clone' as const;

  protected async makeTree(
    config: ProvisionConfig,
    target: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await cloneProject(config.project.path, target, signal);
    await gitOrThrow(
      ['checkout', '-q', '-b', config.branch, `origin/${config.project.defaultBranch}`],
      { cwd: target, signal },
    );
  }

  protected async removeTree(location: TreeLocation): Promise<void> {
    await removeDirectory(location.path);
  }

  protected async listTrees(projectId: string): Promise<WorkspaceInfo[]> {
    const trees: WorkspaceInfo[] = [];
    const directory = projectDirectory(this.root, projectId);
    for (const record of await listOwnerRecords(this.root, projectId)) {
      if (record.kind !== 'clone') continue;
      const tree = path.join(directory, record.sessionId);
      if (!(await stat(path.join(tree, '.git')).catch(() => undefined))) continue;
      const branch = await runGit(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: tree });
      const info: WorkspaceInfo = {
        path: tree,
        branch: '',
        sessionId: record.sessionId,
        projectId,
      };
      if (branch.exitCode === 0) {
        info.branch = branch.stdout.trim();
      } else {
        info.branch = (await gitOrThrow(['rev-parse', 'HEAD'], { cwd: tree })).trim();
        info.detached = true;
      }
      trees.push(info);
    }
    return trees;
  }

  protected async restoreTree(config: ProvisionConfig, target: string): Promise<void> {
    const projectPath = config.project.path;
    const branch = await runGit(
      ['rev-parse', '--verify', '--quiet', `refs/heads/${config.branch}`],
      {
        cwd: projectPath,
      },
    );
    if (branch.exitCode !== 0) {
      throw new WorkspaceError({
        code: 'NOT_FOUND',
        message: `branch "${config.branch}" does not exist in ${projectPath}: nothing to restore a clone from`,
        details: { field: 'branch', branch: config.branch },
      });
    }
    if (await stat(target).catch(() => undefined)) {
      const head = await runGit(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: target });
      if (head.exitCode === 0 && head.stdout.trim() === config.branch) return;
      throw new WorkspaceError({
        code: 'ALREADY_EXISTS',
        message: `${target} exists and is not a clone on branch "${config.branch}"`,
        details: { field: 'path', path: target },
      });
    }
    try {
      await cloneProject(projectPath, target);
      await gitOrThrow(
        ['checkout', '-q', '-b', config.branch, '--track', `origin/${config.branch}`],
        {
          cwd: target,
        },
      );
    } catch (error) {
      await removeDirectory(target).catch(() => {});
      throw error;
    }
  }
}

/**
 * Clones `projectPath` into `target` without checking out: `--local` (hard links) on the same
 * file system, else `--reference` + `--dissociate` (objects copied, no alternates left).
 */
async function cloneProject(
  projectPath: string,
  target: string,
  signal?: AbortSignal,
): Promise<void> {
  const [project, parent] = await Promise.all([stat(projectPath), stat(path.dirname(target))]);
  const args =
    project.dev === parent.dev
      ? ['clone', '-q', '--local', '--no-checkout', '--', projectPath, target]
      : [
          'clone',
          '-q',
          '--no-local',
          '--reference',
          projectPath,
          '--dissociate',
          '--no-checkout',
          '--',
          projectPath,
          target,
        ];
  await gitOrThrow(args, { cwd: path.dirname(target), signal });
}
