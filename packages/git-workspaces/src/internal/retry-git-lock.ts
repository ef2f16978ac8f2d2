import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from '@agent-workspace/core';
import { type GitCallResult, type RunGitOptions, runGit } from './run-git.js';

/** How many times a git call that hit one of git's lock files is tried in all. */
export const GIT_LOCK_ATTEMPTS = 6;

// git's own "someone else holds the lock" messages (index.lock, config, refs, worktree admin).
const LOCK_ERROR =
  /(\.lock'?: File exists|could not lock|cannot lock ref|unable to create '[^']*\.lock'|Another git process seems to be running)/i;

/** True when git's standard error says a lock file was taken. */
export function isGitLockError(stderr: string): boolean {
  return LOCK_ERROR.test(stderr);
}

/**
 * {@link runGit}, tried again (up to {@link GIT_LOCK_ATTEMPTS} times, 25 ms doubling with
 * jitter) while git fails on one of its lock files, which another git process may hold briefly.
 */
export async function runGitRetryingLocks(
  args: string[],
  options: RunGitOptions,
): Promise<GitCallResult> {
  let result = await runGit(args, options);
  for (let attempt = 1; attempt < GIT_LOCK_ATTEMPTS; attempt++) {
    if (result.exitCode === 0 || !isGitLockError(result.stderr)) return result;
    const delay = 25 * 2 ** attempt * (0.5 + Math.random());
    try {
      await sleep(delay, undefined, options.signal ? { signal: options.signal } : {});
    } catch {
      throw abortedError(options.signal as AbortSignal);
    }
    result = await runGit(args, options);
  }
  return result;
}
