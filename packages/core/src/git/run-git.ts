import { execa } from 'execa';
import { WorkspaceError } from '../errors/workspace-error.js';

/** Upper bound of one git call, in milliseconds (the reference uses 30 s too). */
export const GIT_TIMEOUT_MS = 30_000;

/** Options of {@link runGit} and {@link runGitBytes}. */
export interface RunGitOptions {
  /** Directory git runs in (its repository is discovered from there). */
  cwd: string;
  /** Aborting kills git and rejects with a `WorkspaceError` of code `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Default {@link GIT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Text written to git's standard input. */
  input?: string;
  /** Largest accepted standard output, in bytes (git is killed past it). Default 100 MB. */
  maxBuffer?: number;
}

/** A finished git call; a non-zero `exitCode` is a result, not an exception. */
export interface GitResult<Output extends string | Uint8Array = string> {
  exitCode: number;
  stdout: Output;
  stderr: string;
}

// Options before the subcommand: no pager, no fsmonitor daemon, raw (unquoted) paths, no colour.
const globalArgs = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'color.ui=false',
];

// Variables that would point git at another repository than the one found from `cwd`.
const repositoryVariables = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CONFIG_PARAMETERS',
  'GIT_EXTERNAL_DIFF',
]);

/**
 * The environment of every git call: the process environment without variables that redirect
 * repository discovery, plus no optional locks (never write the index behind the user's back),
 * literal pathspecs, no prompts and the C locale (so "not a git repository" is recognisable).
 */
function gitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !repositoryVariables.has(name)) env[name] = value;
  }
  return {
    ...env,
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  };
}

/**
 * Runs `git <args>` without a shell and resolves with its exit code and output, decoded as
 * UTF-8. Throws a `WorkspaceError` only when git could not run to completion: `ABORTED` when
 * `signal` fired, `GIT_ERROR` on timeout, on an output overflow or when git cannot be spawned.
 */
export async function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  return run(args, options, 'utf8') as Promise<GitResult>;
}

/** Like {@link runGit} but keeps standard output as raw bytes (for file contents). */
export async function runGitBytes(
  args: readonly string[],
  options: RunGitOptions,
): Promise<GitResult<Uint8Array>> {
  return run(args, options, 'buffer') as Promise<GitResult<Uint8Array>>;
}

/** Runs git and returns its standard output; a non-zero exit becomes a `GIT_ERROR`. */
export async function gitOutput(args: readonly string[], options: RunGitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (result.exitCode !== 0) throw gitFailure(args, result);
  return result.stdout;
}

/** True when git's standard error says the directory is not inside a work tree. */
export function isNotRepositoryError(stderr: string): boolean {
  return /not a git repository|must be run in a work tree/i.test(stderr);
}

/** Builds the `GIT_ERROR` of a failed git call, with git's standard error in the message. */
export function gitFailure(
  args: readonly string[],
  result: GitResult<string | Uint8Array>,
): WorkspaceError {
  const stderr = result.stderr.trim();
  return new WorkspaceError({
    code: 'GIT_ERROR',
    message: `git ${args.join(' ')} failed with exit code ${result.exitCode}${stderr ? `: ${stderr}` : ''}`,
    details: { args: [...args], exitCode: result.exitCode, stderr },
  });
}

/** Removes exactly one trailing newline (paths may themselves end with whitespace). */
export function stripFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

async function run(
  args: readonly string[],
  options: RunGitOptions,
  encoding: 'utf8' | 'buffer',
): Promise<GitResult<string | Uint8Array>> {
  const { signal } = options;
  if (signal?.aborted) throw aborted(signal);
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  const result = await execa('git', [...globalArgs, ...args], {
    cwd: options.cwd,
    env: gitEnvironment(),
    extendEnv: false,
    encoding,
    stripFinalNewline: false,
    reject: false,
    timeout: timeoutMs,
    ...(signal ? { cancelSignal: signal } : {}),
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    ...(options.maxBuffer === undefined ? {} : { maxBuffer: options.maxBuffer }),
  });
  if (result.isCanceled && signal) throw aborted(signal);
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  const command = `git ${args.join(' ')}`;
  if (result.timedOut) {
    throw new WorkspaceError({
      code: 'GIT_ERROR',
      message: `${command} timed out after ${timeoutMs} ms`,
      details: { args: [...args], timeoutMs },
    });
  }
  if (result.isMaxBuffer) {
    throw new WorkspaceError({
      code: 'GIT_ERROR',
      message: `${command} produced more output than allowed`,
      details: { args: [...args] },
    });
  }
  if (typeof result.exitCode !== 'number') {
    throw new WorkspaceError({
      code: 'GIT_ERROR',
      message: `${command} could not run: ${result.shortMessage ?? 'unknown error'}`,
      cause: result.cause,
      details: { args: [...args] },
    });
  }
  return { exitCode: result.exitCode, stdout: result.stdout as string | Uint8Array, stderr };
}

function aborted(signal: AbortSignal): WorkspaceError {
  return new WorkspaceError({
    code: 'ABORTED',
    message: 'the operation was aborted',
    cause: signal.reason,
  });
}
