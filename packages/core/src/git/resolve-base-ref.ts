import { invalidArgument } from '../errors/invalid-argument.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { type GitPlace, gitFailure, gitOutput, runGit, stripFinalNewline } from './run-git.js';

/** Options of {@link resolveBaseRef}. */
export interface ResolveBaseRefOptions {
  /** A directory inside the repository's work tree. */
  cwd: string;
  /** Explicit base (branch, tag, `HEAD~2`, ...); default: the display policy. */
  ref?: string | undefined;
  /** Explicit base commit, 4..64 hex digits; mutually exclusive with `ref`. */
  commit?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Run every git call inside this sandbox. */
  sandbox?: CommandSandbox | undefined;
}

const commitPattern = /^[0-9a-fA-F]{4,64}$/;

/**
 * Checks `ref` and `commit` the way every git entry point does: a ref must be a non-empty
 * string that does not start with `-` (it would be read as an option), a commit must match
 * `^[0-9a-fA-F]{4,64}$`, and both together are refused. Throws `INVALID_ARGUMENT`.
 */
export function validateBaseOptions(ref: unknown, commit: unknown): void {
  if (ref !== undefined && commit !== undefined) {
    throw invalidArgument('ref', 'and commit are mutually exclusive');
  }
  if (ref !== undefined) {
    if (typeof ref !== 'string' || ref.length === 0) {
      throw invalidArgument('ref', 'must be a non-empty string');
    }
    if (ref.startsWith('-')) throw invalidArgument('ref', `must not start with "-", got "${ref}"`);
    if (ref.includes('\0')) throw invalidArgument('ref', 'must not contain NUL bytes');
  }
  if (commit !== undefined && (typeof commit !== 'string' || !commitPattern.test(commit))) {
    throw invalidArgument('commit', `must match ${commitPattern.source}, got "${String(commit)}"`);
  }
}

/**
 * Picks the object that changes are computed against and returns its full id (a commit, or
 * the empty tree).
 *
 * - `ref` / `commit` given: `git rev-parse --verify <x>^{commit}`; one that does not resolve is
 *   a `GIT_ERROR`, except `HEAD` on an unborn branch, which gives the empty tree.
 * - Otherwise the "display" policy of OpenHands, which shows what was changed here, committed
 *   and pushed work included. First match wins:
 *   1. no commit on HEAD (unborn or orphan branch): the empty tree, so everything is ADDED;
 *   2. `origin/<current branch>`, unless it equals HEAD while the tracked tree is clean (a fully
 *      pushed branch would otherwise show nothing);
 *   3. `merge-base(HEAD, origin/<default>)`, then `origin/<default>`. The default branch comes
 *      from the local `origin/HEAD` symref, else the first of `origin/main`, `origin/master`
 *      that exists (OpenHands asks the network with `git remote show origin`; we never do);
 *   4. without such an origin branch: `merge-base(HEAD, main|master)` when that local branch is
 *      not the current one and is an ancestor of HEAD;
 *   5. `HEAD` (a `git status`-style view).
 */
export async function resolveBaseRef(options: ResolveBaseRefOptions): Promise<string> {
  const { cwd, ref, commit, signal, sandbox } = options;
  validateBaseOptions(ref, commit);
  const git: GitPlace = { cwd, signal, sandbox };
  const explicit = ref ?? commit;
  if (explicit !== undefined) {
    // Validated not to start with `-`; `--end-of-options` makes sure git never reads it as one.
    const args = ['rev-parse', '--verify', '--end-of-options', `${explicit}^{commit}`];
    const result = await runGit(args, git);
    if (result.exitCode === 0) return stripFinalNewline(result.stdout);
    if (explicit === 'HEAD' && !(await hasCommit('HEAD', git))) return emptyTree(git);
    throw gitFailure(args, result);
  }
  return displayBase(git);
}

async function displayBase(git: GitPlace): Promise<string> {
  const head = await revParse('HEAD', git);
  if (head === undefined) return emptyTree(git);
  const branch = await currentBranch(git);

  if (branch !== undefined) {
    const upstream = await revParse(`refs/remotes/origin/${branch}`, git);
    if (upstream !== undefined && (upstream !== head || (await hasTrackedChanges(git)))) {
      return upstream;
    }
  }

  const defaultBranch = await originDefaultBranch(git);
  if (defaultBranch !== undefined) {
    const remoteRef = `refs/remotes/origin/${defaultBranch}`;
    return (await mergeBase(head, remoteRef, git)) ?? (await revParse(remoteRef, git)) ?? head;
  }

  for (const local of ['main', 'master']) {
    const localSha = await revParse(`refs/heads/${local}`, git);
    if (localSha === undefined) continue;
    if (local !== branch && (await mergeBase(head, localSha, git)) === localSha) {
      return localSha;
    }
    break;
  }
  return head;
}

/** The id of the empty tree in this repository's object format (SHA-1 or SHA-256). */
export async function emptyTree(git: GitPlace): Promise<string> {
  const output = await gitOutput(['hash-object', '-t', 'tree', '--stdin'], { ...git, input: '' });
  return output.trim();
}

/** Full commit id of `name`, or `undefined` when it does not name a commit. */
async function revParse(name: string, git: GitPlace): Promise<string | undefined> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', `${name}^{commit}`], git);
  const sha = stripFinalNewline(result.stdout);
  return result.exitCode === 0 && sha ? sha : undefined;
}

async function hasCommit(name: string, git: GitPlace): Promise<boolean> {
  return (await revParse(name, git)) !== undefined;
}

/** Short name of the checked-out branch; `undefined` when HEAD is detached. */
async function currentBranch(git: GitPlace): Promise<string | undefined> {
  const result = await runGit(['symbolic-ref', '--quiet', 'HEAD'], git);
  const name = stripFinalNewline(result.stdout);
  const prefix = 'refs/heads/';
  return result.exitCode === 0 && name.startsWith(prefix) ? name.slice(prefix.length) : undefined;
}

/** Origin's default branch from local refs only (no network). */
async function originDefaultBranch(git: GitPlace): Promise<string | undefined> {
  const prefix = 'refs/remotes/origin/';
  const result = await runGit(['symbolic-ref', '--quiet', `${prefix}HEAD`], git);
  const target = stripFinalNewline(result.stdout);
  if (result.exitCode === 0 && target.startsWith(prefix) && target.length > prefix.length) {
    return target.slice(prefix.length);
  }
  for (const candidate of ['main', 'master']) {
    if (await hasCommit(`${prefix}${candidate}`, git)) return candidate;
  }
  return undefined;
}

async function mergeBase(a: string, b: string, git: GitPlace): Promise<string | undefined> {
  const result = await runGit(['merge-base', a, b], git);
  const sha = stripFinalNewline(result.stdout);
  return result.exitCode === 0 && sha ? sha : undefined;
}

/** True when the index or work tree differs from HEAD (untracked files do not count). */
async function hasTrackedChanges(git: GitPlace): Promise<boolean> {
  const result = await runGit(['status', '--porcelain', '-z', '--untracked-files=no'], git);
  // Like the reference, a failing status counts as dirty so the upstream stays the base.
  return result.exitCode !== 0 || result.stdout.length > 0;
}
