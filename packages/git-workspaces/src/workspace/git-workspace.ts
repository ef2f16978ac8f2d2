import path from 'node:path';
import {
  abortedError,
  type DescribedWorkspaceIdentity,
  LocalWorkspace,
  type WorkspaceCapabilities,
} from '@agent-workspace/core';
import { CloneProvisioner } from '../clone/clone-provisioner.js';
import { defaultGitWorkspacesRoot } from '../internal/tree-layout.js';
import type { PostCreateResult } from '../post-create/run-post-create.js';
import type { ManagedTreeProvisioner } from '../provisioner/managed-tree-provisioner.js';
import type { ProjectConfig, WorkspaceInfo } from '../provisioner/workspace-provisioner.js';
import type { GitWorkspaceKind } from '../reaper/owner-record.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';
import { type ForkGitWorkspaceOptions, forkGitTree } from './fork-git-workspace.js';
import {
  defaultProjectId,
  type GitWorkspaceOptions,
  parseGitWorkspaceOptions,
} from './git-workspace-options.js';

/** How a forked workspace was made (`forkedFrom`). */
type ForkOrigin = NonNullable<LocalWorkspace['forkedFrom']>;

/** What a git workspace passes on to its forks besides its kind and provisioner. */
interface GitWorkspaceSettings {
  project: ProjectConfig;
  onClose: 'keep' | 'destroy';
  forceDestroy: boolean;
  postCreateTimeoutMs: number | undefined;
  onPostCreateFailure: 'fail' | 'warn';
  env: Record<string, string> | undefined;
  maxOutputBytes: number | undefined;
}

/** Options of {@link GitWorkspace.create}'s second argument. */
export interface CreateGitWorkspaceOptions {
  /** Aborting stops git and the post-create commands and removes the tree (`ABORTED`). */
  signal?: AbortSignal | undefined;
}

// One provisioner per kind and root in this process: the start-up reap runs once per root.
const provisioners = new Map<string, ManagedTreeProvisioner>();

/** The shared provisioner of `kind` over `root`. */
function provisionerFor(
  kind: GitWorkspaceKind,
  root: string,
  reapOnStart?: boolean,
): ManagedTreeProvisioner {
  const key = `${kind}\0${root}\0${reapOnStart ?? true}`;
  let provisioner = provisioners.get(key);
  if (!provisioner) {
    provisioner =
      kind === 'worktree'
        ? new WorktreeProvisioner({ root, reapOnStart })
        : new CloneProvisioner({ root, reapOnStart });
    provisioners.set(key, provisioner);
  }
  return provisioner;
}

/**
 * A workspace in its own git tree of a project: a linked worktree (`kind: 'worktree'`) or a full
 * clone (`kind: 'clone'`) at `<root>/<projectId>/<sessionId>`, made by the matching provisioner
 * and prepared by the project's post-create steps. Commands, files and git run through a
 * {@link LocalWorkspace} rooted in the tree. `close()` stops running commands and then, with
 * `onClose: 'destroy'` (the default), removes the tree, refusing (`FORBIDDEN`, tree kept) when
 * it holds uncommitted work unless `forceDestroy`. `fork()` (the `fork` capability) makes a new
 * tree of the project carrying this one's commit, index and files, not its processes.
 *
 * @example
 * ```ts
 * await using workspace = await GitWorkspace.create({
 *   kind: 'worktree', sessionId: 'agent-1', branch: 'agent-1/task',
 *   project: { path: '/src/app', defaultBranch: 'main', postCreate: ['npm ci'] },
 * });
 * await workspace.executeCommand('npm test');
 * ```
 */
export class GitWorkspace extends LocalWorkspace {
  override readonly kind: GitWorkspaceKind;
  /** The tree: path, branch, session and project ids. */
  readonly info: WorkspaceInfo;
  /** What the post-create steps did (failures only with `onPostCreateFailure: 'warn'`). */
  readonly postCreateResult: PostCreateResult;
  /** The provisioner that made the tree (and removes it). */
  readonly provisioner: ManagedTreeProvisioner;
  readonly #settings: GitWorkspaceSettings;
  #capabilities: WorkspaceCapabilities | undefined;
  /** How {@link fork} made this workspace; `undefined` when created. */
  #forkedFrom: ForkOrigin | undefined;
  /** Aborted by `close()`: stops the forks still running. */
  readonly #closing = new AbortController();
  /** Forks of this tree in flight; `close()` waits for them (their lease on the tree). */
  readonly #forking = new Set<Promise<unknown>>();

  private constructor(options: {
    kind: GitWorkspaceKind;
    info: WorkspaceInfo;
    postCreateResult: PostCreateResult;
    provisioner: ManagedTreeProvisioner;
    settings: GitWorkspaceSettings;
  }) {
    const { env, maxOutputBytes } = options.settings;
    super({
      workingDir: options.info.path,
      ...(env && { env }),
      ...(maxOutputBytes && { maxOutputBytes }),
    });
    this.kind = options.kind;
    this.info = options.info;
    this.postCreateResult = options.postCreateResult;
    this.provisioner = options.provisioner;
    this.#settings = options.settings;
  }

  /**
   * Validates `options`, makes the tree (or, with `restore: true`, brings back the tree of the
   * existing branch), runs the post-create steps and returns the workspace. Rejects with
   * `INVALID_CONFIG` naming a bad field, `ALREADY_EXISTS`, `NOT_FOUND` (restore of a missing
   * branch), `GIT_ERROR`, `PROVISIONING_ERROR` (a post-create step failed in `'fail'` mode) or
   * `ABORTED`; a failed creation removes the tree it made.
   */
  static async create(
    options: GitWorkspaceOptions,
    { signal }: CreateGitWorkspaceOptions = {},
  ): Promise<GitWorkspace> {
    const parsed = parseGitWorkspaceOptions(options);
    if (signal?.aborted) throw abortedError(signal);
    const root = parsed.root ?? defaultGitWorkspacesRoot();
    const provisioner = provisionerFor(parsed.kind, root, parsed.reapOnStart);
    const config = {
      projectId: parsed.projectId ?? defaultProjectId(parsed.project.path),
      project: parsed.project,
      sessionId: parsed.sessionId,
      branch: parsed.branch,
    };
    const info = parsed.restore
      ? await provisioner.restore(
          config,
          path.join(provisioner.root, config.projectId, config.sessionId),
        )
      : await provisioner.create(config, { signal });
    const postCreateResult = await provisioner.postCreate(info, parsed.project, {
      timeoutMs: parsed.postCreateTimeoutMs,
      onFailure: parsed.onPostCreateFailure,
      signal,
    });
    return new GitWorkspace({
      kind: parsed.kind,
      info,
      postCreateResult,
      provisioner,
      settings: {
        project: parsed.project,
        onClose: parsed.onClose,
        forceDestroy: parsed.forceDestroy,
        postCreateTimeoutMs: parsed.postCreateTimeoutMs,
        onPostCreateFailure: parsed.onPostCreateFailure,
        env: parsed.env,
        maxOutputBytes: parsed.maxOutputBytes,
      },
    });
  }

  /** A local workspace's capabilities, and `fork` as a new tree of the project. */
  override get capabilities(): WorkspaceCapabilities {
    this.#capabilities ??= Object.freeze({ ...super.capabilities, fork: true });
    return this.#capabilities;
  }

  /**
   * A new git workspace of the same kind, project, root and options on a new branch (`branch`,
   * default `<branch>-fork-<8 hex>`) at this tree's current `HEAD` commit (no fetch; a clone's
   * local commits are fetched from this tree), in `<root>/<projectId>/<sessionId>` (default
   * `<sessionId>-fork-<8 hex>`), with this tree's index (staged changes, conflict stages),
   * unstaged changes and deletions, untracked files and nested repositories, and a clone's
   * stash; ignored files only with `includeIgnored`. Files are copy-on-write clones where the
   * file system allows, links stay links, and nothing is written through a link. Processes are
   * not carried: the fork starts with none. The project's post-create steps then run on it as
   * on a create. The fork is independent: its own owner record, closed (destroyed) on its own.
   * Not carried: in-progress merges and rebases, submodule contents, a clone's other branches
   * (see the README). Commands writing in this tree meanwhile leave the fork with some moment
   * of the copy; `close()` aborts the forks in flight.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `sessionId`, `branch`, `includeIgnored`,
   *   `signal` or `directory` (not an option here); `ALREADY_EXISTS` (field `sessionId` or
   *   `branch`); `WORKSPACE_OCCUPIED` while someone else holds an `exclusive_write` lease on
   *   this tree; `GIT_ERROR`; `PROVISIONING_ERROR` (a post-create step failed); `ABORTED`;
   *   `WORKSPACE_CLOSED`. A failed or aborted fork leaves no tree, owner record or branch.
   */
  override async fork(options: ForkGitWorkspaceOptions = {}): Promise<GitWorkspace> {
    this.assertOpen();
    const settings = this.#settings;
    const forking = forkGitTree({
      ...options,
      holder: this,
      closing: this.#closing.signal,
      info: this.info,
      provisioner: this.provisioner,
      project: settings.project,
      postCreate: {
        timeoutMs: settings.postCreateTimeoutMs,
        onFailure: settings.onPostCreateFailure,
      },
    });
    this.#forking.add(forking);
    try {
      const { info, postCreateResult, copied } = await forking;
      const fork = new GitWorkspace({
        kind: this.kind,
        info,
        postCreateResult,
        provisioner: this.provisioner,
        settings,
      });
      const { method, files, bytes } = copied;
      fork.#forkedFrom = { directory: this.info.path, method, files, bytes };
      return fork;
    } finally {
      this.#forking.delete(forking);
    }
  }

  /** How {@link fork} made this workspace (the source tree, `reflink` or `copy`, counts). */
  override get forkedFrom(): ForkOrigin | undefined {
    return this.#forkedFrom;
  }

  /** The tree's anchor is its own path; its projection is a worktree or a clone. */
  protected override async describeIdentity(): Promise<DescribedWorkspaceIdentity> {
    return {
      projectionKind: this.kind === 'worktree' ? 'git_worktree' : 'clone',
      anchor: this.info.path,
      sessionId: this.info.sessionId,
    };
  }

  /** Stops running commands and forks, then destroys the tree unless `onClose: 'keep'`. */
  protected override async runClose(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled(this.#forking);
    await super.runClose();
    if (this.#settings.onClose === 'keep') return;
    // This object's own leases do not refuse; anyone else's on the directory does.
    await this.provisioner.destroy(this.info.path, {
      force: this.#settings.forceDestroy,
      exceptHeldBy: this,
    });
  }
}
