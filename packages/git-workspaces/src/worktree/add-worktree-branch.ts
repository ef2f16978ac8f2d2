import type { WorkspaceError } from '@agent-workspace/core';
import { runGitRetryingLocks } from '../internal/retry-git-lock.js';
import { gitError } from '../internal/run-git.js';
import { serialisePerRepository } from '../internal/serialise-per-repository.js';

/** Options of {@link addWorktreeBranch}. */
export interface AddWorktreeBranchOptions {
  projectPath: string;
  /** The new branch. */
  branch: string;
  /** Where the linked worktree goes. */
  path: string;
  /** The commit or ref the branch starts at. */
  startPoint: string;
  /** The error for a branch that already exists in the project. */
  branchExists: () => WorkspaceError;
  signal?: AbortSignal | undefined;
}

/**
 * `git worktree add --no-checkout -b <branch> <path> <startPoint>` in the project's queue (only
 * the admin files and the branch are made there; the caller checks the files out outside it, in
 * parallel with other trees), retrying git's lock files; a branch that exists is `branchExists()`.
 */
export async function addWorktreeBranch(options: AddWorktreeBranchOptions): Promise<void> {
  const { projectPath, signal } = options;
  const args = [
    'worktree',
    'add',
    '-q',
    '--no-checkout',
    '--no-track',
    '-b',
    options.branch,
    options.path,
    options.startPoint,
  ];
  const result = await serialisePerRepository(projectPath, () =>
    runGitRetryingLocks(args, { cwd: projectPath, signal }),
  );
  if (result.exitCode === 0) return;
  if (/already exists/.test(result.stderr) && /branch/.test(result.stderr)) {
    throw options.branchExists();
  }
  throw gitError(args, projectPath, result);
}
