import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { abortedError, invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  describeUnsavedWork,
  findUnsavedWork,
  hasUnsavedWork,
} from '../internal/find-unsaved-work.js';
import { inspectProject } from '../internal/inspect-project.js';
import {
  defaultGitWorkspacesRoot,
  parseTreePath,
  projectDirectory,
  SAFE_SEGMENT,
  treePath,
} from '../internal/tree-layout.js';
import {
  assertSymlinkEntries,
  type PostCreateOptions,
  type PostCreateResult,
  runPostCreate,
} from '../post-create/run-post-create.js';
import { leaseTree } from '../reaper/lease-tree.js';
import {
  addOwnerSymlinks,
  type GitWorkspaceKind,
  readOwnerRecord,
  removeOwnerRecord,
  writeOwnerRecord,
} from '../reaper/owner-record.js';
import { type ReapReport, reapGitWorkspaces } from '../reaper/reap-git-workspaces.js';
import { parseProvisionConfig, parseProvisionShape } from './parse-provision-config.js';
import type {
  ProjectConfig,
  ProvisionConfig,
  ProvisionCreateOptions,
  ProvisionDestroyOptions,
  ProvisionDestroyResult,
  ProvisionRestoreOptions,
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

/** What `create` learnt of the project before making the tree. */
export interface MakeTreeContext {
  /** The project's `remote.origin.url`, when it has one. */
  originUrl: string | undefined;
  signal?: AbortSignal | undefined;
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
    const parsed = parseProvisionShape(config);
    const { originUrl } = await inspectProject(parsed.project.path, signal);
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
    let warnings: string[];
    try {
      warnings = await this.makeTree(parsed, target, { originUrl, signal });
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
      ...(warnings.length > 0 && { warnings }),
    };
  }

  async destroy(
    target: string,
    options: ProvisionDestroyOptions = {},
  ): Promise<ProvisionDestroyResult> {
    const { force = false, overrideLeases, exceptHeldBy, signal } = options;
    const { projectId, sessionId, path: tree } = parseTreePath(this.root, target);
    const hold = await leaseTree({
      path: tree,
      operation: 'destroy',
      overrideLeases,
      exceptHeldBy,
      signal,
    });
    try {
      const removed = await this.#destroyHeld({ projectId, sessionId, tree, force, signal });
      return { removed, forced: hold.forced, holders: hold.holders };
    } finally {
      await hold.release();
    }
  }

  /** `destroy` while the tree's lease is held: true when something was removed. */
  async #destroyHeld(options: {
    projectId: string;
    sessionId: string;
    tree: string;
    force: boolean;
    signal: AbortSignal | undefined;
  }): Promise<boolean> {
    const { projectId, sessionId, tree, force, signal } = options;
    const [record, treeStat] = await Promise.all([
      readOwnerRecord(this.root, projectId, sessionId),
      stat(tree).catch(() => undefined),
    ]);
    const exists = treeStat !== undefined;
    if (!exists && !record) return false;
    const location = { path: tree, projectPath: record?.projectPath };
    // A tree with post-create links is never clean to git (they are untracked): look ourselves.
    const gitMayCheck = exists && !force && (record?.symlinks.length ?? 0) === 0;
    if (gitMayCheck && (await this.removeTreeIfClean(location, signal))) {
      await removeOwnerRecord(this.root, projectId, sessionId);
      return true;
    }
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
    await this.removeTree(location, signal);
    await removeOwnerRecord(this.root, projectId, sessionId);
    return true;
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
    assertSymlinkEntries(project.symlinks);
    // Recorded first, so the links never count as uncommitted work (nor block the reaper).
    await addOwnerSymlinks(this.root, projectId, sessionId, project.symlinks ?? []);
    return runPostCreate({
      ...options,
      path: tree,
      project,
      remove: async () => {
        await this.destroy(tree, { force: true });
      },
    });
  }

  async restore(
    config: ProvisionConfig,
    target: string,
    options: ProvisionRestoreOptions = {},
  ): Promise<WorkspaceInfo> {
    await this.start();
    const parsed = await parseProvisionConfig(config);
    const expected = treePath(this.root, parsed.projectId, parsed.sessionId);
    if (path.resolve(target) !== expected) {
      throw invalidArgument('path', `must be the config's managed tree ${expected}, got ${target}`);
    }
    await mkdir(projectDirectory(this.root, parsed.projectId), { recursive: true });
    // Held while the tree is made or taken over, so no one works in it meanwhile.
    const hold = await leaseTree({
      path: expected,
      operation: 'restore',
      overrideLeases: options.overrideLeases,
    });
    try {
      await this.restoreTree(parsed, expected);
    } finally {
      await hold.release();
    }
    // This process owns the tree from now on, beside a long-lived owner declared before.
    const previous = await readOwnerRecord(this.root, parsed.projectId, parsed.sessionId);
    await writeOwnerRecord(this.root, {
      ...(previous?.owner && { owner: previous.owner }),
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

  /** Makes the tree at `target` (which does not exist yet); resolves with warnings. */
  protected abstract makeTree(
    config: ProvisionConfig,
    target: string,
    context: MakeTreeContext,
  ): Promise<string[]>;
  /** Removes the tree at `location.path` unconditionally. */
  protected abstract removeTree(location: TreeLocation, signal?: AbortSignal): Promise<void>;
  /**
   * Removes the tree only if a check cheaper than {@link findUnsavedWork} finds it clean;
   * `false` (the default: no such check) sends `destroy` to the full check.
   */
  protected async removeTreeIfClean(
    _location: TreeLocation,
    _signal?: AbortSignal,
  ): Promise<boolean> {
    return false;
  }
  /** Lists the project's managed trees. */
  protected abstract listTrees(projectId: string): Promise<WorkspaceInfo[]>;
  /** Brings back the tree of an existing branch at `target`. */
  protected abstract restoreTree(config: ProvisionConfig, target: string): Promise<void>;
}
