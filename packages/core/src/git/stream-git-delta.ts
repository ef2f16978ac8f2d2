import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { killProcessGroup } from '../internal/process/kill-process-group.js';
import { spawnChild } from '../internal/process/spawn-child.js';
import type { CommandSandbox, ProcessLaunch } from '../workspace/command-sandbox.js';
import { assertRepositoryInside } from './assert-repository-inside.js';
import { resolveBaseRef } from './resolve-base-ref.js';
import {
  GIT_GLOBAL_ARGS,
  type GitPlace,
  gitEnvironment,
  gitOutput,
  isNotRepositoryError,
  runGit,
  stripFinalNewline,
} from './run-git.js';

/** Options of {@link streamGitDelta}. */
export interface StreamGitDeltaOptions {
  /** Directory inside the work tree; the patch covers it and what lies below. */
  cwd: string;
  /** Base to diff against; default: `HEAD` when detached, else `resolveBaseRef`'s policy. */
  baseRef?: string | undefined;
  /** Archive exclude globs (OpenHands' rules), applied as `:(glob,exclude)` pathspecs. */
  excludes?: readonly string[] | undefined;
  /** Kills git; the stream ends in error. */
  signal?: AbortSignal | undefined;
  /** Run git inside this sandbox (`cwd` is then the path inside it), the scratch a private one. */
  sandbox?: CommandSandbox | undefined;
  /** Real path the repository must lie within (see `assertRepositoryInside`). */
  confineTo?: string | undefined;
}

/** What {@link streamGitDelta} answers. */
export interface GitDelta {
  /** Full id of the base commit; `undefined` when the base is the empty tree. */
  baseCommit: string | undefined;
  /** The binary patch, streamed from git. */
  patch: Readable;
}

// As runGit, and the patch in its plain form.
const globalArgs = [
  ...GIT_GLOBAL_ARGS,
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
];

/** Where the scratch index and object store live, and how a git call is launched to see it. */
interface Scratch {
  /** The directory as git sees it: the object store, with the index file `index` in it. */
  path: string;
  /** The launch of a git call, unwrapped (spawnChild runs it as it is). */
  launch(launch: ProcessLaunch): ProcessLaunch;
  remove(): Promise<void>;
}

/**
 * A binary git patch of the working tree below `cwd` against a base, as OpenHands' `git-delta`
 * archive: tracked changes, untracked files (`.gitignore` honoured) and deletions, minus the
 * excludes. The working tree is staged into a scratch index and object store (a private
 * directory on the host's disk, removed when git ends or `signal` fires; the repository's
 * objects are read as an alternate), so neither the repository's index nor its object store is
 * touched. With `sandbox`, git runs inside it and the scratch is one of the sandbox's
 * (`createScratch`): no other command there sees it. Unlike `runGit`, the patch streams: git's
 * output is never held whole.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `path`: not a git repository; field
 * `base_ref`: starts with `-` or does not resolve), `FORBIDDEN` (outside `confineTo`),
 * `GIT_ERROR`, `ABORTED`, `SANDBOX_EXITED`.
 */
export async function streamGitDelta(options: StreamGitDeltaOptions): Promise<GitDelta> {
  const { cwd, signal, sandbox, confineTo } = options;
  const place: GitPlace = { cwd, signal, sandbox, confineTo };
  const inside = await runGit(['rev-parse', '--is-inside-work-tree'], place);
  if (inside.exitCode !== 0 || stripFinalNewline(inside.stdout) !== 'true') {
    const reason = isNotRepositoryError(inside.stderr) ? inside.stderr.trim() : 'not a work tree';
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `Not a git repository: ${reason}`,
      details: { field: 'path', reason: 'not-a-repository' },
    });
  }
  await assertRepositoryInside(place);
  const base = await resolveBase(options, place);
  const commit = await runGit(['rev-parse', '--verify', '--quiet', `${base}^{commit}`], place);
  const baseCommit = commit.exitCode === 0 ? stripFinalNewline(commit.stdout) : undefined;

  const objects = await gitOutput(
    ['rev-parse', '--path-format=absolute', '--git-path', 'objects'],
    place,
  );
  const scratch = await createScratch(sandbox);
  const env = deltaEnvironment(scratch.path, stripFinalNewline(objects), confineTo);
  const pathspecs = excludePathspecs(options.excludes ?? []);
  const args = ['diff', '--binary', '--no-ext-diff', '--no-textconv', '--cached', base, '--', '.'];
  let child: ReturnType<typeof spawnGit>;
  try {
    await runScratch(['read-tree', base], options, scratch, env);
    await runScratch(['add', '-A', '--', '.', ...pathspecs], options, scratch, env);
    if (signal?.aborted) throw abortedError(signal);
    child = spawnGit([...args, ...pathspecs], options, scratch, env);
    // Not started: `exit` rejects with the SPAWN_ERROR.
    if (child.stdout === null) await child.exit;
  } catch (error) {
    await scratch.remove();
    throw error;
  }
  const patch = child.stdout as Readable;
  const stderr = collectText(child.stderr);
  const kill = () => {
    if (child.pid !== undefined) killProcessGroup(child.pid);
  };
  signal?.addEventListener('abort', kill, { once: true });
  patch.once('close', kill);
  child.exit
    .then(async ({ code }) => {
      if (code !== 0 && !patch.destroyed) {
        patch.destroy(new Error(`git diff failed with exit code ${code}: ${await stderr}`));
      }
    })
    .catch((error: unknown) => patch.destroy(error as Error))
    .finally(() => {
      signal?.removeEventListener('abort', kill);
      void scratch.remove();
    });
  return { baseCommit, patch };
}

/** The base object: the caller's ref, `HEAD` when detached, else the display policy. */
async function resolveBase(options: StreamGitDeltaOptions, place: GitPlace): Promise<string> {
  let ref = options.baseRef;
  if (ref === undefined) {
    const branch = await runGit(['symbolic-ref', '--quiet', 'HEAD'], place);
    const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], place);
    if (branch.exitCode !== 0 && head.exitCode === 0) ref = 'HEAD';
  }
  if (ref?.startsWith('-')) {
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: "base_ref must not start with '-'",
      details: { field: 'base_ref' },
    });
  }
  try {
    return await resolveBaseRef({
      cwd: place.cwd,
      ref,
      signal: place.signal,
      sandbox: place.sandbox,
    });
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'GIT_ERROR') || options.baseRef === undefined)
      throw error;
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `base_ref '${options.baseRef}' could not be resolved`,
      details: { field: 'base_ref' },
      cause: error,
    });
  }
}

/**
 * The excludes as `:(glob,exclude)` pathspecs (OpenHands' translation): a bare name at any
 * depth (behind a `**` component), a pattern with `/` from the root; a trailing `/` excludes only what lies
 * below a directory of that name, so a file of that name stays. A pattern with an empty, `.` or
 * `..` component matches nothing and is left out.
 */
export function excludePathspecs(excludes: readonly string[]): string[] {
  const specs: string[] = [];
  for (const raw of excludes) {
    const directoryOnly = raw.endsWith('/');
    const pattern = raw.replace(/\/+$/, '');
    // Empty, `.` and `..` components match no path below the directory (and git refuses `..`).
    if (pattern.split('/').some((part) => part === '' || part === '.' || part === '..')) continue;
    const anchored = pattern.includes('/') ? pattern : `**/${pattern}`;
    if (!directoryOnly) specs.push(`:(glob,exclude)${anchored}`);
    specs.push(`:(glob,exclude)${anchored}/**`);
  }
  return specs;
}

/**
 * A private scratch directory: one of the sandbox's (only git's launches see it), or a fresh
 * one in the host's temporary directory.
 */
async function createScratch(sandbox: CommandSandbox | undefined): Promise<Scratch> {
  if (sandbox !== undefined) {
    const scratch = await sandbox.createScratch();
    return {
      path: scratch.path,
      launch: (launch) => sandbox.wrap(launch, { scratch }),
      remove: () => scratch.remove(),
    };
  }
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-workspace-delta-'));
  return {
    path: directory,
    launch: (launch) => launch,
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/**
 * runGit's environment with glob pathspecs (magic) allowed and the scratch (`scratch`, as git
 * sees it) as index and object store, the repository's objects (`objects`) read as an
 * alternate: new blobs never land in the repository.
 */
function deltaEnvironment(
  scratch: string,
  objects: string,
  confineTo: string | undefined,
): Record<string, string> {
  return {
    ...gitEnvironment({ confineTo, literalPathspecs: false }),
    GIT_INDEX_FILE: path.posix.join(scratch, 'index'),
    GIT_OBJECT_DIRECTORY: scratch,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
  };
}

/**
 * Starts git in its own process group, seeing the scratch.
 *
 * @throws WorkspaceError `SANDBOX_EXITED` when the sandbox is gone.
 */
function spawnGit(
  args: string[],
  options: StreamGitDeltaOptions,
  scratch: Scratch,
  env: Record<string, string>,
) {
  const launch = scratch.launch({ file: 'git', args: [...globalArgs, ...args], cwd: options.cwd });
  return spawnChild({ ...launch, env, detached: true });
}

/** Runs one scratch-index step to its end; a failure is a `GIT_ERROR` with git's message. */
async function runScratch(
  args: string[],
  options: StreamGitDeltaOptions,
  scratch: Scratch,
  env: Record<string, string>,
): Promise<void> {
  if (options.signal?.aborted) throw abortedError(options.signal);
  const child = spawnGit(args, options, scratch, env);
  const kill = () => {
    if (child.pid !== undefined) killProcessGroup(child.pid);
  };
  options.signal?.addEventListener('abort', kill, { once: true });
  try {
    child.stdout?.resume();
    const [exit, stderr] = await Promise.all([child.exit, collectText(child.stderr)]);
    if (options.signal?.aborted) throw abortedError(options.signal);
    if (exit.code !== 0) {
      throw new WorkspaceError({
        code: 'GIT_ERROR',
        message: `git ${args[0]} failed with exit code ${exit.code}: ${stderr.trim()}`,
        details: { args, exitCode: exit.code, stderr: stderr.trim() },
      });
    }
  } finally {
    options.signal?.removeEventListener('abort', kill);
  }
}

/** The first 64 KiB of a stream, as text (git's standard error). */
async function collectText(stream: Readable | null): Promise<string> {
  let text = '';
  for await (const chunk of stream ?? []) {
    if (text.length < 65_536) text += (chunk as Buffer).toString('utf8');
  }
  return text;
}
