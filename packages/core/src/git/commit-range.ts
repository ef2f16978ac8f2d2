import { GIT_SHA_PATTERN } from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import { assertRepositoryInside } from './assert-repository-inside.js';
import { emptyTree } from './resolve-base-ref.js';
import {
  type GitPlace,
  gitFailure,
  isNotRepositoryError,
  runGit,
  stripFinalNewline,
} from './run-git.js';

/** Throws `INVALID_ARGUMENT` naming `field` unless `sha` is 4 to 64 hex digits. */
export function validateSha(sha: unknown, field: string): asserts sha is string {
  if (typeof sha !== 'string' || !GIT_SHA_PATTERN.test(sha)) {
    throw invalidArgument(field, `must match ${GIT_SHA_PATTERN.source}, got "${String(sha)}"`);
  }
}

/**
 * True when `git.cwd` is inside a work tree, after checking (with `confineTo`) that the
 * repository lies wholly inside it; false outside any repository and inside a `.git` directory.
 * Any other git failure is a `GIT_ERROR`.
 */
export async function insideWorkTree(git: GitPlace): Promise<boolean> {
  const args = ['rev-parse', '--is-inside-work-tree'];
  const probe = await runGit(args, git);
  if (probe.exitCode !== 0) {
    if (isNotRepositoryError(probe.stderr)) return false;
    throw gitFailure(args, probe);
  }
  if (stripFinalNewline(probe.stdout) !== 'true') return false;
  await assertRepositoryInside(git);
  return true;
}

/** A commit and what it is compared against. */
export interface CommitRange {
  /** Full id of the commit. */
  commit: string;
  /** Full id of its first parent, or of the empty tree for a root commit. */
  parent: string;
}

/**
 * Resolves the (validated, hex-only) `sha` to a commit and its first parent. One that names no
 * commit of the repository is a `GIT_ERROR` with git's message.
 */
export async function resolveCommitRange(git: GitPlace, sha: string): Promise<CommitRange> {
  const args = ['rev-parse', '--verify', '--end-of-options', `${sha}^{commit}`];
  const result = await runGit(args, git);
  if (result.exitCode !== 0) throw gitFailure(args, result);
  const commit = stripFinalNewline(result.stdout);
  const parent = await runGit(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${commit}^1^{commit}`],
    git,
  );
  return {
    commit,
    parent: parent.exitCode === 0 ? stripFinalNewline(parent.stdout) : await emptyTree(git),
  };
}
