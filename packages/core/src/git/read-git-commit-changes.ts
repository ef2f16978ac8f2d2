import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitChange } from '@agent-workspace/protocol';
import { MAX_GIT_COMMIT_CHANGES } from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { insideWorkTree, resolveCommitRange, validateSha } from './commit-range.js';
import { parseNameStatus } from './parse-name-status.js';
import { type GitPlace, gitOutput } from './run-git.js';

/** Bytes of `git diff --name-status` output allowed per change answered. */
const NAME_STATUS_BYTES_PER_CHANGE = 2 * 4096;

/** Input of {@link readGitCommitChanges}. */
export interface ReadGitCommitChangesOptions {
  /** Absolute path of a directory in the repository; changes below it are reported. */
  path: string;
  /** The commit, 4 to 64 hex digits (`GIT_SHA_PATTERN`). */
  sha: string;
  /** Most changes answered; default and maximum `MAX_GIT_COMMIT_CHANGES`. */
  maxChanges?: number | undefined;
  /** Called once when the commit changed more than `maxChanges` paths. */
  onTruncated?: (() => void) | undefined;
  /** Aborting kills the running git call and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Run every git call inside this sandbox (`path` must be visible there). */
  sandbox?: CommandSandbox | undefined;
  /** Real path of the directory the repository must lie in (see `assertRepositoryInside`). */
  confineTo?: string | undefined;
}

/**
 * The paths one commit changed against its first parent (a root commit against the empty tree,
 * so all `ADDED`), like OpenHands' `GET /api/git/commits/{sha}/changes`, read from git objects
 * only.
 *
 * - Paths are POSIX, relative to `path` and below it, sorted by their UTF-8 bytes, mapped as by
 *   `readGitChanges` (a rename is one `MOVED` entry at the new path).
 * - Outside any work tree and for a missing `path`: `[]`.
 * - A malformed `sha` is `INVALID_ARGUMENT` (field `sha`); one that names no commit is a
 *   `GIT_ERROR`; past `maxChanges` the first ones are answered and `onTruncated` is called.
 */
export async function readGitCommitChanges(
  options: ReadGitCommitChangesOptions,
): Promise<GitChange[]> {
  const { path: dir, sha, signal, sandbox, confineTo } = options;
  const maxChanges = options.maxChanges ?? MAX_GIT_COMMIT_CHANGES;
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) {
    throw invalidArgument('path', `must be an absolute path, got ${JSON.stringify(dir)}`);
  }
  validateSha(sha, 'sha');
  if (!Number.isInteger(maxChanges) || maxChanges < 1 || maxChanges > MAX_GIT_COMMIT_CHANGES) {
    throw invalidArgument('maxChanges', `must be an integer from 1 to ${MAX_GIT_COMMIT_CHANGES}`);
  }
  const stats = await stat(dir).catch(() => undefined);
  if (stats === undefined) return [];
  if (!stats.isDirectory()) throw invalidArgument('path', `must be a directory: ${dir}`);
  const git: GitPlace = { cwd: dir, signal, sandbox, confineTo };
  if (!(await insideWorkTree(git))) return [];

  const { commit, parent } = await resolveCommitRange(git, sha);
  const output = await gitOutput(
    ['diff', '--name-status', '-z', '-M', '--relative', '--no-ext-diff', parent, commit, '--'],
    { ...git, maxBuffer: MAX_GIT_COMMIT_CHANGES * NAME_STATUS_BYTES_PER_CHANGE },
  );
  const changes = parseNameStatus(output).sort((a, b) =>
    Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')),
  );
  if (changes.length <= maxChanges) return changes;
  options.onTruncated?.();
  return changes.slice(0, maxChanges);
}
