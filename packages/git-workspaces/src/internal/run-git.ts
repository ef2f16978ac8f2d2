import { WorkspaceError } from '@agent-workspace/core';
import { type GitResult, runGit as runCoreGit } from '@agent-workspace/core/internal';

/** Upper bound of one git call unless the caller gives another, in milliseconds. */
export const GIT_CALL_TIMEOUT_MS = 120_000;

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Directory git runs in. */
  cwd: string;
  /** Aborting kills git; the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Default {@link GIT_CALL_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
}

/** A finished git call; a non-zero `exitCode` is a result here, not an exception. */
export type GitCallResult = GitResult;

/**
 * Runs `git <args>` in `cwd` through core's git runner (no shell, its own process group, bounded
 * output, no prompts, no repository redirection from the environment). Rejects only when git
 * cannot run, times out (`GIT_ERROR`) or `signal` fires (`ABORTED`).
 */
export function runGit(args: string[], options: RunGitOptions): Promise<GitCallResult> {
  const { cwd, signal, timeoutMs = GIT_CALL_TIMEOUT_MS } = options;
  return runCoreGit(args, { cwd, signal, timeoutMs });
}

/** Like {@link runGit} but a non-zero exit is a `GIT_ERROR` carrying git's standard error. */
export async function gitOrThrow(args: string[], options: RunGitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (result.exitCode !== 0) throw gitError(args, options.cwd, result);
  return result.stdout;
}

/** The `GIT_ERROR` of a failed call. */
export function gitError(args: string[], cwd: string, result: GitCallResult): WorkspaceError {
  return new WorkspaceError({
    code: 'GIT_ERROR',
    message: `git ${args.join(' ')} failed in ${cwd} (exit ${result.exitCode}): ${result.stderr.trim().slice(-2_000)}`,
    details: { args, cwd, exitCode: result.exitCode, stderr: result.stderr.slice(-2_000) },
  });
}
