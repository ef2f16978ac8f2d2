import {
  type GitChange,
  type GitCommitsPage,
  readGitCommitChanges,
  readGitCommits,
  WorkspaceError,
} from '@agent-workspace/core';
import { type DirectoryHandle, openDirectory } from '@agent-workspace/core/internal';
import type { ServerContext } from '../app/server-context.js';
import { confineTo, withRealPaths, workPath } from './server-git.js';

/** What {@link readServerGitCommitChanges} found, and whether it was cut at `MAX_GIT_COMMIT_CHANGES`. */
export interface ServerGitCommitChanges {
  changes: GitChange[];
  truncated: boolean;
}

/**
 * The server's `git/commits` read: the repository at `path` (absolute, or relative to the working
 * directory) is opened race-free through `context.paths`, git runs in the command sandbox when
 * the server has one and the repository must lie in the working directory when the server is
 * confined. A missing directory has no commits, as in OpenHands.
 *
 * @throws WorkspaceError `FORBIDDEN`, `INVALID_ARGUMENT`, `GIT_ERROR`.
 */
export async function readServerGitCommits(
  context: ServerContext,
  options: { path: string; limit: number },
): Promise<GitCommitsPage> {
  return readRepository(context, options.path, { commits: [], hasMore: false }, (place) =>
    readGitCommits({ ...place, limit: options.limit }),
  );
}

/**
 * The server's `git/commits/{sha}/changes` read, under the same rules as
 * {@link readServerGitCommits}: the paths commit `sha` changed against its first parent.
 *
 * @throws WorkspaceError `FORBIDDEN`, `INVALID_ARGUMENT`, `GIT_ERROR` (a sha naming no commit).
 */
export async function readServerGitCommitChanges(
  context: ServerContext,
  options: { path: string; sha: string },
): Promise<ServerGitCommitChanges> {
  let truncated = false;
  return readRepository(context, options.path, { changes: [], truncated: false }, async (place) => {
    const changes = await readGitCommitChanges({
      ...place,
      sha: options.sha,
      onTruncated: () => {
        truncated = true;
      },
    });
    return { changes, truncated };
  });
}

/** Where git reads a repository the server opened: its descriptor path, sandbox and confinement. */
interface RepositoryPlace {
  path: string;
  sandbox: ServerContext['sandbox'];
  confineTo: string | undefined;
}

/**
 * Runs `read` on the directory `path` opened through the walker (closed after), its failures
 * naming real paths; `missing` when the directory does not exist.
 */
async function readRepository<T>(
  context: ServerContext,
  path: string,
  missing: T,
  read: (place: RepositoryPlace) => Promise<T>,
): Promise<T> {
  const directory = openOrMissing(context, path);
  if (directory === undefined) return missing;
  try {
    return await withRealPaths(directory, () =>
      read({
        path: workPath(directory, context),
        sandbox: context.sandbox,
        confineTo: confineTo(context),
      }),
    );
  } finally {
    directory.close();
  }
}

/** The directory `path` opened through the walker; `undefined` when it does not exist. */
function openOrMissing(context: ServerContext, path: string): DirectoryHandle | undefined {
  try {
    return openDirectory(context.paths, path, 'path');
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return undefined;
    throw error;
  }
}
