import path from 'node:path';
import {
  abortedError,
  type DescribedWorkspaceIdentity,
  LocalWorkspace,
} from '@agent-workspace/core';
import { CloneProvisioner } from '../clone/clone-provisioner.js';
import { defaultGitWorkspacesRoot } from '../internal/tree-layout.js';
import type { PostCreateResult } from '../post-create/run-post-create.js';
import type { ManagedTreeProvisioner } from '../provisioner/managed-tree-provisioner.js';
import type { WorkspaceInfo } from '../provisioner/workspace-provisioner.js';
import type { GitWorkspaceKind } from '../reaper/owner-record.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';
import {
  defaultProjectId,
  type GitWorkspaceOptions,
  parseGitWorkspaceOptions,
} from './git-workspace-options.js';

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
 * it holds uncommitted work unless `forceDestroy`.
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
  readonly #onClose: 'keep' | 'destroy';
  readonly #forceDestroy: boolean;

  private constructor(options: {
    kind: GitWorkspaceKind;
    info: WorkspaceInfo;
    postCreateResult: PostCreateResult;
    provisioner: ManagedTreeProvisioner;
    onClose: 'keep' | 'destroy';
    forceDestroy: boolean;
    env: Record<string, string> | undefined;
    maxOutputBytes: number | undefined;
  }) {
    super({
      workingDir: options.info.path,
      ...(options.env && { env: options.env }),
      ...(options.maxOutputBytes && { maxOutputBytes: options.maxOutputBytes }),
    });
    this.kind = options.kind;
    this.info = options.info;
    this.postCreateResult = options.postCreateResult;
    this.provisioner = options.provisioner;
    this.#onClose = options.onClose;
    this.#forceDestroy = options.forceDestroy;
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
      onClose: parsed.onClose,
      forceDestroy: parsed.forceDestroy,
      env: parsed.env,
      maxOutputBytes: parsed.maxOutputBytes,
    });
  }

  /** The tree's anchor is its own path; its projection is a worktree or a clone. */
  protected override async describeIdentity(): Promise<DescribedWorkspaceIdentity> {
    return {
      projectionKind: this.kind === 'worktree' ? 'git_worktree' : 'clone',
      anchor: this.info.path,
      sessionId: this.info.sessionId,
    };
  }

  /** Stops running commands, then destroys the tree unless `onClose: 'keep'`. */
  protected override async runClose(): Promise<void> {
    await super.runClose();
    if (this.#onClose === 'keep') return;
    // This object's own leases do not refuse; anyone else's on the directory does.
    await this.provisioner.destroy(this.info.path, {
      force: this.#forceDestroy,
      exceptHeldBy: this,
    });
  }
}
