import { invalidArgument } from '../workspace/base-workspace.js';
import { gitFailure, gitOutput, runGit, stripFinalNewline } from './run-git.js';

/** Options of {@link resolveBaseRef}. */
export interface ResolveBaseRefOptions {
  /** A directory inside the repository's work tree. */
  cwd: string;
  /** Explicit base (branch, tag, `HEAD~2`, ...); default: the display policy. */
  ref?: string | undefined;
  /** Explicit base commit, 4..64 hex digits; mutually exclusive with `ref`. */
  commit?: string | undefined;
  signal?: AbortSignal | undefined;
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
  const { cwd, ref, commit, signal } = options;
  validateBaseOptions(ref, commit);
  const explicit = ref ?? commit;
  if (explicit !== undefined) {
    const args = ['rev-parse', '--verify', `${explicit}^{commit}`];
    const result = await runGit(args, { cwd, signal });
    if (result.exitCode === 0) return stripFinalNewline(result.stdout);
    if (explicit === 'HEAD' && !(await hasCommit('HEAD', cwd, signal))) {
      return emptyTree(cwd, signal);
    }
    throw gitFailure(args, result);
  }
  return displayBase(cwd, signal);
}

async function displayBase(cwd: string, signal: AbortSignal | undefined): Promise<string> {
  const head = await revParse('HEAD', cwd, signal);
  if (head === undefined) return emptyTree(cwd, signal);
  const branch = await currentBranch(cwd, signal);

  if (branch !== undefined) {
    const upstream = await revParse(`refs/remotes/origin/${branch}`, cwd, signal);
    if (upstream !== undefined && (upstream !== head || (await hasTrackedChanges(cwd, signal)))) {
      return upstream;
    }
  }

  const defaultBranch = await originDefaultBranch(cwd, signal);
  if (defaultBranch !== undefined) {
    const remoteRef = `refs/remotes/origin/${defaultBranch}`;
    return (
      (await mergeBase(head, remoteRef, cwd, signal)) ??
      (await revParse(remoteRef, cwd, signal)) ??
      head
    );
  }

  for (const local of ['main', 'master']) {
    const localSha = await revParse(`refs/heads/${local}`, cwd, signal);
    if (localSha === undefined) continue;
    if (local !== branch && (await mergeBase(head, localSha, cwd, signal)) === localSha) {
      return localSha;
    }
    break;
  }
  return head;
}

/** The id of the empty tree in this repository's object format (SHA-1 or SHA-256). */
async function emptyTree(cwd: string, signal: AbortSignal | undefined): Promise<string> {
  const output = await gitOutput(['hash-object', '-t', 'tree', '--stdin'], {
    cwd,
    signal,
    input: '',
  });
  return output.trim();
}

/** Full commit id of `name`, or `undefined` when it does not name a commit. */
async function revParse(
  name: string,
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', `${name}^{commit}`], {
    cwd,
    signal,
  });
  const sha = stripFinalNewline(result.stdout);
  return result.exitCode === 0 && sha ? sha : undefined;
}

async function hasCommit(
  name: string,
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  return (await revParse(name, cwd, signal)) !== undefined;
}

/** Short name of the checked-out branch; `undefined` when HEAD is detached. */
async function currentBranch(
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const result = await runGit(['symbolic-ref', '--quiet', 'HEAD'], { cwd, signal });
  const name = stripFinalNewline(result.stdout);
  const prefix = 'refs/heads/';
  return result.exitCode === 0 && name.startsWith(prefix) ? name.slice(prefix.length) : undefined;
}

/** Origin's default branch from local refs only (no network). */
async function originDefaultBranch(
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const prefix = 'refs/remotes/origin/';
  const result = await runGit(['symbolic-ref', '--quiet', `${prefix}HEAD`], { cwd, signal });
  const target = stripFinalNewline(result.stdout);
  if (result.exitCode === 0 && target.startsWith(prefix) && target.length > prefix.length) {
    return target.slice(prefix.length);
  }
  for (const candidate of ['main', 'master']) {
    if (await hasCommit(`${prefix}${candidate}`, cwd, signal)) return candidate;
  }
  return undefined;
}

async function mergeBase(
  a: string,
  b: string,
  cwd: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const result = await runGit(['merge-base', a, b], { cwd, signal });
  const sha = stripFinalNewline(result.stdout);
  return result.exitCode === 0 && sha ? sha : undefined;
}

/** True when the index or work tree differs from HEAD (untracked files do not count). */
async function hasTrackedChanges(cwd: string, signal: AbortSignal | undefined): Promise<boolean> {
  const result = await runGit(['status', '--porcelain', '-z', '--untracked-files=no'], {
    cwd,
    signal,
  });
  // Like the reference, a failing status counts as dirty so the upstream stays the base.
  return result.exitCode !== 0 || result.stdout.length > 0;
}
