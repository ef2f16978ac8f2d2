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
 *      from the local `origin/HEAD` symref when the branch it names exists, else the first of
 *      `origin/main`, `origin/master` that exists (OpenHands asks the network with
 *      `git remote show origin`; we never do);
 *   4. without such an origin branch: `merge-base(HEAD, main|master)` when that local branch is
 *      not the current one and is an ancestor of HEAD;
 *   5. `HEAD` (a `git status`-style view).
 *
 *   The current branch and every ref these steps read come from one git call; a detached or
 *   unborn HEAD, a merge base or a clean-tree check cost one more each.
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
  const { refs, branch } = await readPolicyRefs(git);
  // Detached or unborn: HEAD is no listed branch.
  const head =
    branch === undefined ? await revParse('HEAD', git) : refs.get(`refs/heads/${branch}`);
  if (head === undefined) return emptyTree(git);

  if (branch !== undefined) {
    const upstream = refs.get(`${originPrefix}${branch}`);
    if (upstream !== undefined && (upstream !== head || (await hasTrackedChanges(git)))) {
      return upstream;
    }
  }

  const defaultBranch = originDefaultBranch(refs);
  if (defaultBranch !== undefined) {
    const remote = refs.get(`${originPrefix}${defaultBranch}`) as string;
    return (await mergeBase(head, remote, git)) ?? remote;
  }

  for (const local of ['main', 'master']) {
    const localSha = refs.get(`refs/heads/${local}`);
    if (localSha === undefined) continue;
    if (local !== branch && (await mergeBase(head, localSha, git)) === localSha) {
      return localSha;
    }
    break;
  }
  return head;
}

const originPrefix = 'refs/remotes/origin/';
const originHead = `${originPrefix}HEAD`;
const policyRefsFormat = [
  'HEAD',
  'refname',
  'objecttype',
  'objectname',
  '*objecttype',
  '*objectname',
  'symref',
]
  .map((field) => `%(${field})`)
  .join('%00');

/** What {@link readPolicyRefs} read. */
interface PolicyRefs {
  /**
   * Local branches and every ref of `origin`, each mapped to the commit it names (tags peeled;
   * refs naming anything else, and dangling symbolic refs, are left out); `origin/HEAD` maps
   * to the full name of the ref it points at.
   */
  refs: Map<string, string>;
  /** Short name of the checked-out branch when it has a commit; else HEAD is detached or unborn. */
  branch: string | undefined;
}

/** The refs the display policy reads, from one `git for-each-ref`; nothing when git fails. */
async function readPolicyRefs(git: GitPlace): Promise<PolicyRefs> {
  const patterns = ['refs/heads/', originPrefix];
  const result = await runGit(['for-each-ref', `--format=${policyRefsFormat}`, ...patterns], git);
  const read: PolicyRefs = { refs: new Map(), branch: undefined };
  if (result.exitCode !== 0) return read;
  // Ref names hold no control characters, so newlines and NULs split the output safely.
  for (const line of result.stdout.split('\n')) {
    const [current, name, type, id, peeledType, peeledId, target] = line.split('\0');
    if (!name) continue;
    const commit = type === 'tag' && peeledType === 'commit' ? peeledId : type === 'commit' && id;
    if (name === originHead) {
      if (target) read.refs.set(name, target);
    } else if (commit) {
      read.refs.set(name, commit);
      if (current === '*') read.branch = name.slice('refs/heads/'.length);
    }
  }
  return read;
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

/** Origin's default branch among `refs` (see {@link readPolicyRefs}); no network. */
function originDefaultBranch(refs: ReadonlyMap<string, string>): string | undefined {
  const target = refs.get(originHead);
  if (target?.startsWith(originPrefix) && refs.has(target)) {
    return target.slice(originPrefix.length);
  }
  return ['main', 'master'].find((candidate) => refs.has(`${originPrefix}${candidate}`));
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
