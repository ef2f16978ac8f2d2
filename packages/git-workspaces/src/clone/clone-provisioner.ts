import { stat } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { inspectProject } from '../internal/inspect-project.js';
import { resolveStartPoint } from '../internal/resolve-start-point.js';
import { gitOrThrow, runGit } from '../internal/run-git.js';
import { projectDirectory } from '../internal/tree-layout.js';
import {
  type MakeTreeContext,
  ManagedTreeProvisioner,
  type TreeLocation,
} from '../provisioner/managed-tree-provisioner.js';
import type { ProvisionConfig, WorkspaceInfo } from '../provisioner/workspace-provisioner.js';
import { listOwnerRecords } from '../reaper/owner-record.js';
import { removeDirectory } from '../worktree/remove-worktree.js';

/**
 * Full, independent clones of the project: `git clone --local` (hard links when the root is on
 * the project's file system) or `--reference` + `--dissociate` when not, then
 * `git checkout --no-track -b <branch>` from `origin/<defaultBranch>` (after a fetch) or the
 * project's `<defaultBranch>`. The clone's `origin` is the project's `origin` and the project is
 * the remote `project` (a project without an origin is the clone's `origin`). A branch that
 * exists in the project is `ALREADY_EXISTS` (use `restore`). A clone has its own `.git` (no
 * alternates), so it keeps working when the project is deleted. Unpushed commits count as
 * unsaved work.
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
    { originUrl, signal }: MakeTreeContext,
  ): Promise<string[]> {
    const projectPath = config.project.path;
    const defaultBranch = config.project.defaultBranch;
    const start = await resolveStartPoint({
      projectPath,
      defaultBranch,
      originUrl,
      fetch: config.project.fetch,
      signal,
    });
    const branchRef = `refs/heads/${config.branch}`;
    const trackingRef = `refs/remotes/origin/${defaultBranch}`;
    const localRef = `refs/heads/${defaultBranch}`;
    // After the fetch, so the clone has its objects; the ref lookup is read-only, so beside it.
    const [refs, { projectRemote }] = await Promise.all([
      readRefs(projectPath, [branchRef, trackingRef, localRef], signal),
      cloneProject({ projectPath, target, originUrl, signal }),
    ]);
    if (refs.has(branchRef)) {
      throw new WorkspaceError({
        code: 'ALREADY_EXISTS',
        message: `branch "${config.branch}" already exists in ${projectPath}; use restore() to bring back its tree`,
        details: { field: 'branch', branch: config.branch },
      });
    }
    const startCommit = refs.get(start.from === 'origin' ? trackingRef : localRef);
    if (startCommit === undefined) {
      throw new WorkspaceError({
        code: 'INVALID_CONFIG',
        message: `project.defaultBranch "${defaultBranch}" is not a branch of ${projectPath}`,
        details: { fields: ['project.defaultBranch'], field: 'project.defaultBranch' },
      });
    }
    const tracking = projectRemote === 'project' ? refs.get(trackingRef) : undefined;
    await Promise.all([
      // The clone's origin/<defaultBranch> is where the project last saw it.
      tracking === undefined
        ? undefined
        : gitOrThrow(['update-ref', trackingRef, tracking], { cwd: target, signal }),
      gitOrThrow(['checkout', '-q', '--no-track', '-b', config.branch, startCommit], {
        cwd: target,
        signal,
      }),
    ]);
    return start.warnings;
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
      const { originUrl } = await inspectProject(projectPath);
      const { projectRemote } = await cloneProject({ projectPath, target, originUrl });
      await gitOrThrow(
        ['checkout', '-q', '-b', config.branch, '--track', `${projectRemote}/${config.branch}`],
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

/** Input of {@link cloneProject}. */
interface CloneProjectOptions {
  projectPath: string;
  target: string;
  /** The project's `remote.origin.url`; the clone's `origin` points there too when given. */
  originUrl?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Clones `projectPath` into `target` without checking out: `--local` (hard links) on the same
 * file system, else `--reference` + `--dissociate` (objects copied, no alternates left). When
 * the project has an `origin`, the clone's `origin` points at the same URL (configured by the
 * clone itself) and the project is the remote `project`; else the project is `origin`. Resolves
 * with the name of the remote that is the project.
 */
export async function cloneProject(
  options: CloneProjectOptions,
): Promise<{ projectRemote: 'origin' | 'project' }> {
  const { projectPath, target, originUrl, signal } = options;
  const projectRemote = originUrl === undefined ? 'origin' : 'project';
  const [project, parent] = await Promise.all([stat(projectPath), stat(path.dirname(target))]);
  const how =
    project.dev === parent.dev
      ? ['--local']
      : ['--no-local', '--reference', projectPath, '--dissociate'];
  // A relative URL means the same remote from the clone only once made absolute.
  const origin =
    originUrl === undefined
      ? []
      : [
          '--config',
          `remote.origin.url=${/^[^/]+:|^\//.test(originUrl) ? originUrl : path.resolve(projectPath, originUrl)}`,
          '--config',
          'remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*',
        ];
  await gitOrThrow(
    [
      'clone',
      '-q',
      ...how,
      '--no-checkout',
      '--origin',
      projectRemote,
      ...origin,
      '--',
      projectPath,
      target,
    ],
    { cwd: path.dirname(target), signal },
  );
  return { projectRemote };
}

/** The commits of those of `refs` (full names) that exist in `repository`, in one git call. */
async function readRefs(
  repository: string,
  refs: string[],
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const output = await gitOrThrow(
    ['for-each-ref', '--format=%(objectname) %(refname)', '--', ...refs],
    { cwd: repository, signal },
  );
  const found = new Map<string, string>();
  for (const line of output.split('\n')) {
    const space = line.indexOf(' ');
    const name = line.slice(space + 1);
    // for-each-ref also matches refs below a pattern (`a` matches `a/b`): keep exact names.
    if (space > 0 && refs.includes(name)) found.set(name, line.slice(0, space));
  }
  return found;
}
