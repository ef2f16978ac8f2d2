import { abortedError, WorkspaceError } from '@agent-workspace/core';
import { execa } from 'execa';

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
export interface GitCallResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

// Variables that would point git at another repository than the one found from `cwd`.
const REDIRECTING = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
]);

/** The process environment minus repository redirections, with no prompts and the C locale. */
function gitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !REDIRECTING.has(name)) env[name] = value;
  }
  env.LC_ALL = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

/**
 * Runs `git <args>` in `cwd` with execa (no shell). Rejects only when git cannot run, times
 * out (`GIT_ERROR`) or `signal` fires (`ABORTED`).
 */
export async function runGit(args: string[], options: RunGitOptions): Promise<GitCallResult> {
  const { cwd, signal, timeoutMs = GIT_CALL_TIMEOUT_MS } = options;
  if (signal?.aborted) throw abortedError(signal);
  const result = await execa('git', ['-c', 'core.quotePath=false', ...args], {
    cwd,
    env: gitEnvironment(),
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    timeout: timeoutMs,
    ...(signal && { cancelSignal: signal }),
    stdin: 'ignore',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (signal?.aborted) throw abortedError(signal);
  if (result.timedOut) {
    throw new WorkspaceError({
      code: 'GIT_ERROR',
      message: `git ${args.join(' ')} timed out after ${timeoutMs} ms in ${cwd}`,
      details: { args, cwd },
    });
  }
  if (result.exitCode === undefined) {
    throw new WorkspaceError({
      code: 'GIT_ERROR',
      message: `cannot run git ${args.join(' ')} in ${cwd}: ${result.message}`,
      cause: result.cause,
      details: { args, cwd },
    });
  }
  return {
    exitCode: result.exitCode,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
  };
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
