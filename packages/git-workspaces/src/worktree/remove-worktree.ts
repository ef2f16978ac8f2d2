import { lstat, rm, stat } from 'node:fs/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { SYSTEM_PATH, spawnChild } from '@agent-workspace/core/internal';
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
 * `git worktree remove --force --force` (also when locked) in the project's queue, which
 * deletes the tree and its admin files; only when git does not know the tree (half-made, or
 * its admin files were pruned) or it is already gone is the directory deleted and
 * `git worktree prune` run. A project that is gone only costs the directory. The branch
 * stays. Rejects with `GIT_ERROR` or `PROVISIONING_ERROR`.
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
      // git removed the tree and its admin files: nothing left to prune.
      if (removed.exitCode === 0) return;
      // Not a registered worktree (half-made, or its admin files were pruned): just a directory.
      await removeDirectory(tree);
    }
    const prune = await runGitRetryingLocks(['worktree', 'prune'], { cwd: projectPath, signal });
    if (prune.exitCode !== 0) throw gitError(['worktree', 'prune'], projectPath, prune);
  });
}

/**
 * Removes a linked worktree only if git finds it clean: plain `git worktree remove`, whose own
 * check (`git status --porcelain`, untracked files shown whatever the repository's
 * `status.showUntrackedFiles`) refuses modified, staged or untracked files and a locked tree.
 * Resolves `true` when removed, `false` when git refused or could not (the caller then looks for
 * itself); the project gone resolves `false` too.
 */
export async function removeWorktreeIfClean(options: RemoveWorktreeOptions): Promise<boolean> {
  const { projectPath, path: tree, signal } = options;
  if ((await stat(projectPath).catch(() => undefined))?.isDirectory() !== true) return false;
  const args = ['-c', 'status.showUntrackedFiles=normal', 'worktree', 'remove', tree];
  const removed = await serialisePerRepository(projectPath, () =>
    runGitRetryingLocks(args, { cwd: projectPath, signal }),
  );
  return removed.exitCode === 0;
}

/**
 * Deletes a directory tree without following links; a failure is `PROVISIONING_ERROR` naming
 * it. On Linux GNU `rm -rf --one-file-system` does it (a fifth faster than Node's `rm` on a
 * tree of 10,000 files, and it does not enter a mounted file system of another device: that
 * is then the failure); only where `rm` cannot start does Node's `rm` do it.
 */
export async function removeDirectory(directory: string): Promise<void> {
  const failure = (reason: string, cause?: unknown) =>
    new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `cannot remove ${directory}: ${reason}`,
      cause,
      details: { path: directory, errno: (cause as NodeJS.ErrnoException | undefined)?.code },
    });
  if (process.platform === 'linux') {
    const removed = await removeWithRm(directory);
    if (removed === true) return;
    if (removed !== undefined) throw failure(removed);
  }
  try {
    await rm(directory, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    throw failure((error as Error).message, error);
  }
}

/**
 * Runs `rm -rf --one-file-system -- directory`: `true` when it removed it, `rm`'s complaint when
 * it failed, `undefined` when `rm` could not start.
 */
async function removeWithRm(directory: string): Promise<true | string | undefined> {
  const child = spawnChild({
    file: 'rm',
    args: ['-rf', '--one-file-system', '--', directory],
    cwd: '/',
    env: { PATH: SYSTEM_PATH, LC_ALL: 'C' },
  });
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 2_000) stderr += chunk;
  });
  const exit = await child.exit.catch(() => undefined);
  if (exit === undefined) return undefined;
  if (exit.code === 0 && !(await lstat(directory).catch(() => undefined))) return true;
  return stderr.trim() || `rm exited with ${exit.code ?? exit.signal}`;
}
