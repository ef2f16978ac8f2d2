import { rm, stat } from 'node:fs/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { runGitRetryingLocks } from '../internal/retry-git-lock.js';
import { gitError } from '../internal/run-git.js';
import { serialisePerRepository } from '../internal/serialise-per-repository.js';

/** Input of {@link removeWorktree}. */
export interface RemoveWorktreeOptions {
  /** The project repository the worktree belongs to. */
  projectPath: string;
  /** The worktree. */
  path: string;
  signal?: AbortSignal | undefined;
}

/**
 * Removes a linked worktree unconditionally (callers check for uncommitted work first):
 * `git worktree remove --force --force` (also when locked), then `git worktree prune`, both in
 * the project's queue; a directory git no longer knows is deleted, and a project that is gone
 * only costs the directory. The branch stays. Rejects with `GIT_ERROR` or `PROVISIONING_ERROR`.
 */
export async function removeWorktree(options: RemoveWorktreeOptions): Promise<void> {
  const { projectPath, path: tree, signal } = options;
  const projectExists = (await stat(projectPath).catch(() => undefined))?.isDirectory() === true;
  if (!projectExists) {
    await removeDirectory(tree);
    return;
  }
  await serialisePerRepository(projectPath, async () => {
    const exists = await stat(tree).catch(() => undefined);
    if (exists) {
      const args = ['worktree', 'remove', '--force', '--force', tree];
      const removed = await runGitRetryingLocks(args, { cwd: projectPath, signal });
      // Not a registered worktree (half-made, or its admin files were pruned): just a directory.
      if (removed.exitCode !== 0) await removeDirectory(tree);
    }
    const prune = await runGitRetryingLocks(['worktree', 'prune'], { cwd: projectPath, signal });
    if (prune.exitCode !== 0) throw gitError(['worktree', 'prune'], projectPath, prune);
  });
}

/** Deletes a directory tree; a failure is `PROVISIONING_ERROR` naming it. */
export async function removeDirectory(directory: string): Promise<void> {
  try {
    await rm(directory, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `cannot remove ${directory}: ${(error as Error).message}`,
      cause: error,
      details: { path: directory, errno: (error as NodeJS.ErrnoException).code },
    });
  }
}
