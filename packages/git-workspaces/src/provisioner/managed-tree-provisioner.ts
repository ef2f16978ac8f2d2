import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { abortedError, invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  describeUnsavedWork,
  findUnsavedWork,
  hasUnsavedWork,
} from '../internal/find-unsaved-work.js';
import { runGit } from '../internal/run-git.js';
import {
  defaultGitWorkspacesRoot,
  parseTreePath,
  projectDirectory,
  SAFE_SEGMENT,
  treePath,
} from '../internal/tree-layout.js';
import {
  type PostCreateOptions,
  type PostCreateResult,
  runPostCreate,
} from '../post-create/run-post-create.js';
import {
  addOwnerSymlinks,
  type GitWorkspaceKind,
  readOwnerRecord,
  removeOwnerRecord,
  writeOwnerRecord,
} from '../reaper/owner-record.js';
import { type ReapReport, reapGitWorkspaces } from '../reaper/reap-git-workspaces.js';
import { parseProvisionConfig } from './parse-provision-config.js';
import type {
  ProjectConfig,
  ProvisionConfig,
  ProvisionCreateOptions,
  ProvisionDestroyOptions,
  WorkspaceInfo,
  WorkspaceProvisioner,
} from './workspace-provisioner.js';

/** Default bound of the start-up reap, in milliseconds. */
export const DEFAULT_REAP_TIMEOUT_MS = 30_000;

/** Options of the git provisioners. */
export interface GitProvisionerOptions {
  /** The managed root (absolute or relative to the cwd). Default `~/.agent-workspace/git-workspaces`. */
  root?: string | undefined;
  /** Run {@link reapGitWorkspaces} on the root before the first operation. Default `true`. */
  reapOnStart?: boolean | undefined;
  /** Bound of that start-up reap. Default {@link DEFAULT_REAP_TIMEOUT_MS}. */
  reapTimeoutMs?: number | undefined;
}

/** Where a tree's removal needs to look. */
export interface TreeLocation {
  path: string;
  /** The project repository, when known. */
  projectPath: string | undefined;
}

/**
 * What the `worktree` and `clone` provisioners share: config validation, the tree layout, owner
 * records, the start-up reap, the uncommitted-work refusal of `destroy`, `exists`, `postCreate`
 * and `restore`'s checks. Subclasses make, remove, list and restore the trees themselves.
 */
export abstract class ManagedTreeProvisioner implements WorkspaceProvisioner {
  abstract readonly name: GitWorkspaceKind;
  readonly root: string;
  readonly #reapOnStart: boolean;
  readonly #reapTimeoutMs: number;
  #started: Promise<ReapReport | undefined> | undefined;

  constructor(options: GitProvisionerOptions = {}) {
    if (options.root !== undefined && (typeof options.root !== 'string' || options.root === '')) {
      throw invalidArgument('root', 'must be a non-empty path');
    }
    this.root = path.resolve(options.root ?? defaultGitWorkspacesRoot());
    this.#reapOnStart = options.reapOnStart ?? true;
    this.#reapTimeoutMs = options.reapTimeoutMs ?? DEFAULT_REAP_TIMEOUT_MS;
  }

  /**
   * Start-up: reaps the root once (when `reapOnStart`), bounded by `reapTimeoutMs`. Every
   * operation awaits it first; calling it directly gets the report (`undefined` when not
   * reaping). A failed or timed-out reap does not stop the provisioner: its report lists the
   * error as a kept tree with reason `'error'` and path `root`.
   */
  start(): Promise<ReapReport | undefined> {
    this.#started ??= this.#reapOnStart
      ? reapGitWorkspaces({
          root: this.root,
          signal: AbortSignal.timeout(this.#reapTimeoutMs),
        }).catch((error: unknown) => ({
          removed: [],
          kept: [
            {
              path: this.root,
              projectId: '',
              sessionId: '',
              reason: 'error' as const,
              detail: `start-up reap stopped: ${(error as Error).message}`,
            },
          ],
        }))
      : Promise.resolve(undefined);
    return this.#started;
  }

  async create(
    config: ProvisionConfig,
    options: ProvisionCreateOptions = {},
  ): Promise<WorkspaceInfo> {
    const { signal } = options;
    await this.start();
    const parsed = await parseProvisionConfig(config, signal);
    await assertProjectRepository(parsed.project.path, signal);
    const target = treePath(this.root, parsed.projectId, parsed.sessionId);
    if (await stat(target).catch(() => undefined)) {
      throw new WorkspaceError({
        code: 'ALREADY_EXISTS',
        message: `sessionId "${parsed.sessionId}" is in use: ${target} exists`,
        details: { field: 'sessionId', path: target },
      });
    }
    await mkdir(projectDirectory(this.root, parsed.projectId), { recursive: true });
    // The record comes first: a reaper never meets an ownerless tree of a live process.
    await writeOwnerRecord(this.root, {
      kind: this.name,
      path: target,
      projectId: parsed.projectId,
      sessionId: parsed.sessionId,
      branch: parsed.branch,
      projectPath: parsed.project.path,
      symlinks: parsed.project.symlinks ?? [],
    });
    try {
      await this.makeTree(parsed, target, signal);
      if (signal?.aborted) throw abortedError(signal);
    } catch (error) {
      await this.removeTree({ path: target, projectPath: parsed.project.path }).catch(() => {});
      await removeOwnerRecord(this.root, parsed.projectId, parsed.sessionId);
      throw error;
    }
    return {
      path: target,
      branch: parsed.branch,
      sessionId: parsed.sessionId,
      projectId: parsed.projectId,
    };
  }

  async destroy(target: string, options: ProvisionDestroyOptions = {}): Promise<void> {
    const { force = false, signal } = options;
    const { projectId, sessionId, path: tree } = parseTreePath(this.root, target);
    const record = await readOwnerRecord(this.root, projectId, sessionId);
    const exists = (await stat(tree).catch(() => undefined)) !== undefined;
    if (!exists && !record) return;
    if (exists && !force) {
      const work = await findUnsavedWork({
        path: tree,
        unpushedCommits: this.name === 'clone',
        ignoreSymlinks: record?.symlinks,
        signal,
      });
      if (hasUnsavedWork(work)) {
        throw new WorkspaceError({
          code: 'FORBIDDEN',
          message: `refusing to destroy ${tree}: it holds ${describeUnsavedWork(work)}; commit them or pass force: true`,
          details: { field: 'path', path: tree, reason: 'uncommitted-work', ...work },
        });
      }
    }
    await this.removeTree({ path: tree, projectPath: record?.projectPath }, signal);
    await removeOwnerRecord(this.root, projectId, sessionId);
  }

  async list(projectId: string): Promise<WorkspaceInfo[]> {
    if (typeof projectId !== 'string' || !SAFE_SEGMENT.test(projectId)) {
      throw invalidArgument(
        'projectId',
        `must be a safe path segment, got ${JSON.stringify(projectId)}`,
      );
    }
    await this.start();
    return this.listTrees(projectId);
  }

  async exists(target: string): Promise<boolean> {
    let tree: string;
    try {
      tree = parseTreePath(this.root, target).path;
    } catch {
      return false;
    }
    return (await stat(path.join(tree, '.git')).catch(() => undefined)) !== undefined;
  }

  async postCreate(
    info: WorkspaceInfo,
    project: ProjectConfig,
    options: PostCreateOptions = {},
  ): Promise<PostCreateResult> {
    const { projectId, sessionId, path: tree } = parseTreePath(this.root, info.path);
    // Recorded first, so the links never count as uncommitted work (nor block the reaper).
    await addOwnerSymlinks(this.root, projectId, sessionId, project.symlinks ?? []);
    return runPostCreate({
      ...options,
      path: tree,
      project,
      remove: () => this.destroy(tree, { force: true }),
    });
  }

  async restore(config: ProvisionConfig, target: string): Promise<WorkspaceInfo> {
    await this.start();
    const parsed = await parseProvisionConfig(config);
    const expected = treePath(this.root, parsed.projectId, parsed.sessionId);
    if (path.resolve(target) !== expected) {
      throw invalidArgument('path', `must be the config's managed tree ${expected}, got ${target}`);
    }
    await assertProjectRepository(parsed.project.path);
    await mkdir(projectDirectory(this.root, parsed.projectId), { recursive: true });
    await this.restoreTree(parsed, expected);
    // This process owns the tree from now on.
    await writeOwnerRecord(this.root, {
      kind: this.name,
      path: expected,
      projectId: parsed.projectId,
      sessionId: parsed.sessionId,
      branch: parsed.branch,
      projectPath: parsed.project.path,
      symlinks: parsed.project.symlinks ?? [],
    });
    return {
      path: expected,
      branch: parsed.branch,
      sessionId: parsed.sessionId,
      projectId: parsed.projectId,
    };
  }

  /** Makes the tree at `target` (which does not exist yet). */
  protected abstract makeTree(
    config: ProvisionConfig,
    target: string,
    signal?: AbortSignal,
  ): Promise<void>;
  /** Removes the tree at `location.path` unconditionally. */
  protected abstract removeTree(location: TreeLocation, signal?: AbortSignal): Promise<void>;
  /** Lists the project's managed trees. */
  protected abstract listTrees(projectId: string): Promise<WorkspaceInfo[]>;
  /** Brings back the tree of an existing branch at `target`. */
  protected abstract restoreTree(config: ProvisionConfig, target: string): Promise<void>;
}

/** Rejects with `INVALID_CONFIG` (field `project.path`) unless `projectPath` is a git work tree. */
async function assertProjectRepository(projectPath: string, signal?: AbortSignal): Promise<void> {
  const isDirectory = (await stat(projectPath).catch(() => undefined))?.isDirectory() === true;
  const probe = isDirectory
    ? await runGit(['rev-parse', '--is-inside-work-tree'], { cwd: projectPath, signal })
    : undefined;
  if (probe?.exitCode !== 0 || probe.stdout.trim() !== 'true') {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `project.path ${projectPath} is not a git work tree${isDirectory ? '' : ' (no such directory)'}`,
      details: { fields: ['project.path'], field: 'project.path' },
    });
  }
}
