import path from 'node:path';
import type { Readable } from 'node:stream';
import { WorkspaceError } from '../errors/workspace-error.js';
import { childEnvironment } from '../internal/process/child-environment.js';
import { killProcessGroup, type ProcessGroupKill } from '../internal/process/kill-process-group.js';
import { spawnChild } from '../internal/process/spawn-child.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';

/** Upper bound of one git call, in milliseconds (the reference uses 30 s too). */
export const GIT_TIMEOUT_MS = 30_000;

/** Default cap on each of git's output streams, in bytes. */
export const GIT_MAX_BUFFER_BYTES = 100_000_000;

/** Options of {@link runGit} and {@link runGitBytes}. */
export interface RunGitOptions {
  /** Directory git runs in (its repository is discovered from there). */
  cwd: string;
  /** Aborting kills git and rejects with a `WorkspaceError` of code `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Default {@link GIT_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  /** Text written to git's standard input. */
  input?: string | undefined;
  /** Largest accepted standard output (and error), in bytes; git is killed past it. Default 100 MB. */
  maxBuffer?: number | undefined;
  /** Run git inside this sandbox (`cwd` is then the path inside it). */
  sandbox?: CommandSandbox | undefined;
  /**
   * Real path of a directory git must not look above for a repository
   * (`GIT_CEILING_DIRECTORIES` is its parent); see `assertRepositoryInside`.
   */
  confineTo?: string | undefined;
}

/** Where and how a sequence of git calls runs: directory, cancellation, sandbox, confinement. */
export type GitPlace = Pick<RunGitOptions, 'cwd' | 'signal' | 'sandbox' | 'confineTo'>;

/** A finished git call; a non-zero `exitCode` is a result, not an exception. */
export interface GitResult<Output extends string | Uint8Array = string> {
  exitCode: number;
  stdout: Output;
  stderr: string;
}

/** Options of every git call before its subcommand: no pager, no fsmonitor, raw paths, no colour. */
export const GIT_GLOBAL_ARGS: readonly string[] = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'color.ui=false',
];

// Variables that would point git at another repository, index or object store than the one found
// from `cwd`, run a program of the environment's choosing, or change how pathspecs read.
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
  'GIT_LITERAL_PATHSPECS',
]);

/** Options of {@link gitEnvironment}. */
export interface GitEnvironmentOptions {
  /** See {@link RunGitOptions.confineTo}. */
  confineTo?: string | undefined;
  /** `false`: pathspec magic (`:(glob,exclude)...`) is read as such. Default `true`. */
  literalPathspecs?: boolean | undefined;
}

/**
 * The environment of every git call: the process environment without a server's keys
 * (`childEnvironment`) and without variables that redirect git (`GIT_DIR`, `GIT_INDEX_FILE`,
 * `GIT_EXTERNAL_DIFF`, ...), plus no optional locks (never write the index behind the user's
 * back), literal pathspecs (unless `literalPathspecs: false`), no prompts and the C locale (so
 * "not a git repository" is recognisable); with `confineTo`, no discovery above it.
 */
export function gitEnvironment(options: GitEnvironmentOptions = {}): Record<string, string> {
  const { confineTo } = options;
  const env = childEnvironment();
  for (const name of repositoryVariables) delete env[name];
  return {
    ...env,
    GIT_OPTIONAL_LOCKS: '0',
    ...(options.literalPathspecs !== false && { GIT_LITERAL_PATHSPECS: '1' }),
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    ...(confineTo !== undefined && { GIT_CEILING_DIRECTORIES: path.dirname(confineTo) }),
  };
}

/**
 * Runs `git <args>` without a shell, in its own process group, and resolves with its exit code
 * and output, decoded as UTF-8. Throws a `WorkspaceError` only when git could not run to
 * completion: `ABORTED` when `signal` fired, `GIT_ERROR` on timeout, on an output overflow or
 * when git was killed by a signal, `SPAWN_ERROR` when git cannot be started (`details.errno`).
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

/** Why git was stopped before it finished. */
type StopReason = 'aborted' | 'timeout' | 'overflow';

async function run(
  args: readonly string[],
  options: RunGitOptions,
  encoding: 'utf8' | 'buffer',
): Promise<GitResult<string | Uint8Array>> {
  const { signal } = options;
  if (signal?.aborted) throw aborted(signal);
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  const maxBuffer = options.maxBuffer ?? GIT_MAX_BUFFER_BYTES;
  const child = spawnChild({
    file: 'git',
    args: [...GIT_GLOBAL_ARGS, ...args],
    cwd: options.cwd,
    env: gitEnvironment({ confineTo: options.confineTo }),
    stdin: options.input === undefined ? 'ignore' : 'pipe',
    detached: true,
    sandbox: options.sandbox,
  });
  let stopReason: StopReason | undefined;
  let kill: ProcessGroupKill | undefined;
  const stop = (reason: StopReason): void => {
    stopReason ??= reason;
    if (child.pid !== undefined) kill ??= killProcessGroup(child.pid);
  };
  const onAbort = (): void => stop('aborted');
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (child.stdin) {
    // EPIPE when git exits without reading: its exit status tells what happened.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
  }
  try {
    const [exit, stdout, stderr] = await Promise.all([
      child.exit,
      collect(child.stdout, maxBuffer, () => stop('overflow')),
      collect(child.stderr, maxBuffer, () => stop('overflow')),
    ]);
    const command = `git ${args.join(' ')}`;
    if (stopReason === 'aborted' && signal) throw aborted(signal);
    if (stopReason === 'timeout') {
      throw new WorkspaceError({
        code: 'GIT_ERROR',
        message: `${command} timed out after ${timeoutMs} ms`,
        details: { args: [...args], timeoutMs },
      });
    }
    if (stopReason === 'overflow') {
      throw new WorkspaceError({
        code: 'GIT_ERROR',
        message: `${command} produced more output than allowed`,
        details: { args: [...args] },
      });
    }
    if (exit.code === null) {
      throw new WorkspaceError({
        code: 'GIT_ERROR',
        message: `${command} could not run: killed by ${exit.signal ?? 'a signal'}`,
        details: { args: [...args], signal: exit.signal },
      });
    }
    return {
      exitCode: exit.code,
      stdout: encoding === 'utf8' ? stdout.toString('utf8') : stdout,
      stderr: stderr.toString('utf8'),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    kill?.settle();
  }
}

/** Reads `stream` to its end; past `maxBytes` calls `onOverflow` once and keeps only the cap. */
async function collect(
  stream: Readable | null,
  maxBytes: number,
  onOverflow: () => void,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream ?? []) {
    if (size > maxBytes) continue;
    size += (chunk as Buffer).length;
    if (size > maxBytes) onOverflow();
    else chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function aborted(signal: AbortSignal): WorkspaceError {
  return new WorkspaceError({
    code: 'ABORTED',
    message: 'the operation was aborted',
    cause: signal.reason,
  });
}
