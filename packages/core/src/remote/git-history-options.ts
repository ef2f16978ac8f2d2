import { GIT_SHA_PATTERN, MAX_GIT_COMMITS_LIMIT } from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { GitCommitsOptions } from '../workspace/git-history.js';

/** Re-exported: core's index and `RemoteWorkspace` take it from here (defined with `GitHistory`). */
export type { GitCommitsOptions };

/** Options of `RemoteWorkspace.gitDiff`; `ref` and `commit` are exclusive. */
export interface GitDiffOptions {
  /** Base ref (never one starting with `-`); default: the server's display policy. */
  ref?: string | undefined;
  /** A commit sha (4 to 64 hex digits): the file as that commit changed it. */
  commit?: string | undefined;
}

/**
 * Checks git options before they are sent: a `ref` must not be empty nor start with `-`, a
 * `commit` or `sha` must match `GIT_SHA_PATTERN`, `ref` with `commit` and a `limit` outside
 * 1..`MAX_GIT_COMMITS_LIMIT` are refused. Throws `INVALID_ARGUMENT` naming the field.
 */
export function checkGitHistoryOptions(
  options: GitDiffOptions & GitCommitsOptions & { sha?: string | undefined },
): void {
  const { ref, commit, limit, sha } = options;
  if (ref !== undefined && commit !== undefined) {
    throw invalidArgument('ref', 'and commit are mutually exclusive');
  }
  if (ref !== undefined && (ref.length === 0 || ref.startsWith('-'))) {
    throw invalidArgument('ref', `must be non-empty and not start with "-", got "${ref}"`);
  }
  for (const [field, value] of [
    ['commit', commit],
    ['sha', sha],
  ] as const) {
    if (value !== undefined && !GIT_SHA_PATTERN.test(value)) {
      throw invalidArgument(field, `must match ${GIT_SHA_PATTERN.source}, got "${value}"`);
    }
  }
  if (
    limit !== undefined &&
    (!Number.isInteger(limit) || limit < 1 || limit > MAX_GIT_COMMITS_LIMIT)
  ) {
    throw invalidArgument(
      'limit',
      `must be an integer from 1 to ${MAX_GIT_COMMITS_LIMIT}, got ${limit}`,
    );
  }
}
