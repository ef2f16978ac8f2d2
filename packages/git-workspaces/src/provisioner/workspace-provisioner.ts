import type { OccupyingHolder } from '@agent-workspace/core';
import type { PostCreateOptions, PostCreateResult } from '../post-create/run-post-create.js';

/** The repository agents work on, and how a new tree of it is prepared. */
export interface ProjectConfig {
  /** Absolute path of the project's repository (its main work tree). */
  path: string;
  /** Branch new trees start from (e.g. `main`). */
  defaultBranch: string;
  /** Paths relative to the project (e.g. `node_modules`) linked into new trees when present. */
  symlinks?: string[] | undefined;
  /** Shell commands run in each new tree after it is made (e.g. `pnpm install --offline`). */
  postCreate?: string[] | undefined;
  /**
   * Fetch `defaultBranch` from `origin` and start new branches at `origin/<defaultBranch>`.
   * Default: `true` when the project has a remote `origin`. A failed fetch falls back to the
   * local default branch and says so in {@link WorkspaceInfo.warnings}.
   */
  fetch?: boolean | undefined;
}

/** What a provisioner needs to make one tree. */
export interface ProvisionConfig {
  /** Names the project's directory under the managed root; a safe path segment. */
  projectId: string;
  project: ProjectConfig;
  /** Names the tree (`<root>/<projectId>/<sessionId>`); a safe path segment. */
  sessionId: string;
  /** The tree's branch (must pass `git check-ref-format --branch`). */
  branch: string;
}

/** A managed tree. */
export interface WorkspaceInfo {
  /** Absolute path of the tree. */
  path: string;
  /** Its branch (short name); the HEAD commit id when `detached`. */
  branch: string;
  sessionId: string;
  projectId: string;
  /** True when the tree's HEAD is detached. */
  detached?: boolean | undefined;
  /** Why git keeps a worktree locked (`''` when locked without a reason). */
  locked?: string | undefined;
  /** Why git would prune the worktree (its directory is gone, ...). */
  prunable?: string | undefined;
  /** What `create` could not do as asked (e.g. a failed fetch); absent when none. */
  warnings?: string[] | undefined;
}

/** Options of {@link WorkspaceProvisioner.create}. */
export interface ProvisionCreateOptions {
  /** Aborting stops git and removes what was made; the call rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** Options of {@link WorkspaceProvisioner.destroy}. */
export interface ProvisionDestroyOptions {
  /** Delete even when the tree holds uncommitted work (modified, staged or untracked files). */
  force?: boolean | undefined;
  /** Delete even while others hold occupancy leases on the tree; the result names them. */
  overrideLeases?: boolean | undefined;
  /** A workspace object whose own leases on the tree do not refuse (it closes its own tree). */
  exceptHeldBy?: object | undefined;
  signal?: AbortSignal | undefined;
}

/** What {@link WorkspaceProvisioner.destroy} did. */
export interface ProvisionDestroyResult {
  /** False when there was nothing to remove (no tree, no owner record). */
  removed: boolean;
  /** True when live lease holders were overridden (`overrideLeases`). */
  forced: boolean;
  /** The overridden holders (empty unless `forced`). */
  holders: OccupyingHolder[];
}

/** Options of {@link WorkspaceProvisioner.restore}. */
export interface ProvisionRestoreOptions {
  /** Restore over an existing tree even while others hold occupancy leases on it. */
  overrideLeases?: boolean | undefined;
}

/**
 * Makes and removes isolated trees of a repository for parallel agents (the operations of
 * ao-core's workspace plugins). Trees live at `<root>/<projectId>/<sessionId>` with an owner
 * record in `<root>/<projectId>/.owners/<sessionId>.json`.
 */
export interface WorkspaceProvisioner {
  /** `'worktree'` or `'clone'`. */
  readonly name: string;
  /** The managed root. */
  readonly root: string;
  /**
   * Makes the tree on a new branch `config.branch` from `project.defaultBranch` (fetched first
   * when `project.fetch`). Rejects with `INVALID_CONFIG` naming a bad field, `ALREADY_EXISTS`
   * when the tree or the branch (in the project) exists, `GIT_ERROR`, or `ABORTED`; a failure
   * leaves nothing behind.
   */
  create(config: ProvisionConfig, options?: ProvisionCreateOptions): Promise<WorkspaceInfo>;
  /**
   * Removes a managed tree and its owner record (the branch stays), holding an
   * `exclusive_write` occupancy lease on the tree's directory meanwhile. Refuses with
   * `WORKSPACE_OCCUPIED` (field `path`, naming the holders) while another holder (any workspace
   * on that directory, in any process) holds a lease on it, unless `overrideLeases` (the result
   * then says `forced` and lists them); with `FORBIDDEN` (`details.reason`
   * `'uncommitted-work'`, listing paths) when it holds uncommitted work, unless `force`; with
   * `FORBIDDEN` (field `path`) for a path outside the managed root.
   */
  destroy(path: string, options?: ProvisionDestroyOptions): Promise<ProvisionDestroyResult>;
  /** The managed trees of a project. */
  list(projectId: string): Promise<WorkspaceInfo[]>;
  /** Links `project.symlinks` and runs `project.postCreate` in a new tree. */
  postCreate?(
    info: WorkspaceInfo,
    project: ProjectConfig,
    options?: PostCreateOptions,
  ): Promise<PostCreateResult>;
  /** True when `path` is a managed tree that exists on disk. */
  exists?(path: string): Promise<boolean>;
  /**
   * Brings back the tree of an existing branch after its directory was lost. Over an existing
   * tree it refuses with `WORKSPACE_OCCUPIED` while another holder holds a lease on it, unless
   * `overrideLeases`.
   */
  restore?(
    config: ProvisionConfig,
    path: string,
    options?: ProvisionRestoreOptions,
  ): Promise<WorkspaceInfo>;
}
