import type { GitChange, GitCommitsPage } from '@agent-workspace/protocol';
import type { Workspace } from './workspace.js';

/** Options of {@link GitHistory.gitCommits}. */
export interface GitCommitsOptions {
  /** Most commits answered, 1 to `MAX_GIT_COMMITS_LIMIT`; default `DEFAULT_GIT_COMMITS_LIMIT` (50). */
  limit?: number | undefined;
}

/**
 * A repository's commit history, as OpenHands' `GET /api/git/commits` and
 * `GET /api/git/commits/{sha}/changes` give it: `LocalWorkspace` reads it with core's
 * `readGitCommits` / `readGitCommitChanges`, `RemoteWorkspace` asks its agent-server, which
 * reads it the same way. A workspace is one when it declares the `gitHistory` capability (found
 * with {@link gitHistoryOf}), never by its methods or class. Paths resolve against `workingDir`.
 */
export interface GitHistory {
  /**
   * The most recent commits reachable from HEAD of the repository at `path`, newest first, and
   * whether there are more than `limit`. No commits outside any repository, for a missing
   * directory and on an unborn branch.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `limit` (not an integer from 1 to
   * `MAX_GIT_COMMITS_LIMIT`) or `path`; `GIT_ERROR` when git fails.
   */
  gitCommits(path: string, options?: GitCommitsOptions): Promise<GitCommitsPage>;
  /**
   * The paths commit `sha` changed against its first parent (a root commit: all `ADDED`),
   * relative to `path` and below it, sorted by their UTF-8 bytes; `[]` outside any repository.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `sha` when it is not 4 to 64 hex digits
   * (`GIT_SHA_PATTERN`), or `path`; `GIT_ERROR` when `sha` names no commit or git fails.
   */
  gitCommitChanges(path: string, sha: string): Promise<GitChange[]>;
}

/**
 * `candidate` as a {@link GitHistory} when it is a workspace that declares the `gitHistory`
 * capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function gitHistoryOf(candidate: unknown): GitHistory | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.gitHistory === true
    ? (workspace as Workspace & GitHistory)
    : undefined;
}
