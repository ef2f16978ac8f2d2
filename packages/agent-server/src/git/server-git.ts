import {
  type GitChange,
  type GitDiff,
  type ReadGitChangesOptions,
  readGitChanges,
  readGitCommitDiff,
  readGitDiff,
  WorkspaceError,
} from '@agent-workspace/core';
import { type DirectoryHandle, openDirectory, PROC_FD_WALKS } from '@agent-workspace/core/internal';
import type { GitChangesTruncation } from '@agent-workspace/protocol';
import type { ServerContext } from '../app/server-context.js';

/** What {@link readServerGitChanges} found, and the bound that cut the search short, if any. */
export interface ServerGitChanges {
  changes: GitChange[];
  truncation: GitChangesTruncation | undefined;
}

/**
 * The server's `git/changes` read, for its route and its own workspace alike: `path` (absolute,
 * or relative to the working directory) is opened race-free through `context.paths` (so
 * confinement refuses it), git runs in the command sandbox when the server has one, stays in
 * the working directory when the server is confined, and searches nested repositories within
 * the server's `gitSearch*` bounds. A missing directory has no changes, as in OpenHands.
 *
 * @throws WorkspaceError `FORBIDDEN`, `INVALID_ARGUMENT`, `GIT_ERROR` (messages name real
 * paths, never the descriptor path git was given).
 */
export async function readServerGitChanges(
  context: ServerContext,
  options: { path: string; ref?: string | undefined },
): Promise<ServerGitChanges> {
  let directory: DirectoryHandle;
  try {
    directory = openDirectory(context.paths, options.path, 'path');
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'NOT_FOUND'))
      return { changes: [], truncation: undefined };
    throw error;
  }
  let truncation: GitChangesTruncation | undefined;
  try {
    const changes = await withRealPaths(directory, () =>
      readGitChanges({
        path: workPath(directory, context),
        sandbox: context.sandbox,
        confineTo: confineTo(context),
        searchLimits: searchLimits(context),
        onTruncated: (bound) => {
          truncation = bound;
        },
        ...(options.ref !== undefined && { ref: options.ref }),
      }),
    );
    return { changes, truncation };
  } finally {
    directory.close();
  }
}

/**
 * The server's `git/diff` read of one file, under the same rules as
 * {@link readServerGitChanges}; `ref` and `commit` are exclusive. With `ref` (or neither) the
 * file now against the base; with `commit`, as OpenHands means it, the file as that commit
 * changed it (first parent against the commit, from git objects: it may be deleted now).
 *
 * @throws WorkspaceError `FORBIDDEN`, `NOT_FOUND`, `INVALID_ARGUMENT` (a directory), `GIT_ERROR`.
 */
export async function readServerGitDiff(
  context: ServerContext,
  options: { path: string; ref?: string | undefined; commit?: string | undefined },
): Promise<GitDiff> {
  const walk = context.paths.begin(options.path, 'path', { stopAtMissing: true });
  const end = context.paths.walk(walk);
  try {
    context.paths.assertInside(end.parent.realPath(), walk);
    if (end.name === undefined) {
      throw new WorkspaceError({
        code: 'INVALID_ARGUMENT',
        message: `path is a directory: ${options.path}`,
        details: { field: 'path' },
      });
    }
    const target = `${workPath(end.parent, context)}/${end.name}`;
    const place = { path: target, sandbox: context.sandbox, confineTo: confineTo(context) };
    return await withRealPaths(end.parent, () =>
      options.commit !== undefined && options.ref === undefined
        ? readGitCommitDiff({ ...place, commit: options.commit })
        : readGitDiff({
            ...place,
            ...(options.ref !== undefined && { ref: options.ref }),
            ...(options.commit !== undefined && { commit: options.commit }),
          }),
    );
  } finally {
    end.parent.close();
  }
}

/** Runs `read`; a failure's message names the directory's real path, not its descriptor path. */
export async function withRealPaths<T>(
  directory: DirectoryHandle,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!WorkspaceError.isInstance(error) || !error.message.includes(`${directory.ref}/`)) {
      throw error;
    }
    throw new WorkspaceError({
      code: error.code,
      message: error.message.replaceAll(`${directory.ref}/`, `${directory.realPath()}/`),
      cause: error.cause,
      details: error.details,
    });
  }
}

/** The real working directory git reads must stay in, when the server is confined. */
export function confineTo(context: ServerContext): string | undefined {
  return context.options.confineToWorkingDir ? context.paths.rootRealPath : undefined;
}

/** The server's bounds of the nested-repository search (core's defaults where unset). */
function searchLimits(context: ServerContext): ReadGitChangesOptions['searchLimits'] {
  const { options } = context;
  return {
    maxDepth: options.gitSearchMaxDepth,
    maxRepositories: options.gitSearchMaxRepositories,
    maxDirectories: options.gitSearchMaxDirectories,
    timeoutMs:
      options.gitSearchTimeoutSeconds === undefined
        ? undefined
        : options.gitSearchTimeoutSeconds * 1000,
  };
}

/**
 * The path git works with for a directory opened through the walker: on Linux without a sandbox
 * the open directory itself (`/proc/self/fd/<fd>`, which child processes enter before running),
 * so the directory checked is the one read; otherwise its real path.
 */
export function workPath(directory: DirectoryHandle, context: ServerContext): string {
  return PROC_FD_WALKS && context.sandbox === undefined ? directory.ref : directory.realPath();
}
