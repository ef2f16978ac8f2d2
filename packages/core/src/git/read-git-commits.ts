import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitCommit, GitCommitsPage } from '@agent-workspace/protocol';
import {
  DEFAULT_GIT_COMMITS_LIMIT,
  MAX_GIT_COMMIT_AUTHOR_CHARS,
  MAX_GIT_COMMIT_SUBJECT_CHARS,
  MAX_GIT_COMMITS_LIMIT,
} from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { insideWorkTree } from './commit-range.js';
import { splitNul } from './parse-name-status.js';
import { type GitPlace, gitOutput, runGit, stripFinalNewline } from './run-git.js';

/** Bytes of `git log` output allowed per commit: a long subject is cut after it is read. */
const LOG_BYTES_PER_COMMIT = 64 * 1024;

/** Input of {@link readGitCommits}. */
export interface ReadGitCommitsOptions {
  /** Absolute path of a directory in the repository. */
  path: string;
  /** Most commits answered, 1 to `MAX_GIT_COMMITS_LIMIT`; default `DEFAULT_GIT_COMMITS_LIMIT`. */
  limit?: number | undefined;
  /** Aborting kills the running git call and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Run every git call inside this sandbox (`path` must be visible there). */
  sandbox?: CommandSandbox | undefined;
  /** Real path of the directory the repository must lie in (see `assertRepositoryInside`). */
  confineTo?: string | undefined;
}

/** Checks a commit-count limit: an integer from 1 to `MAX_GIT_COMMITS_LIMIT`, else `INVALID_ARGUMENT`. */
export function validateCommitsLimit(limit: unknown): asserts limit is number {
  if (
    !Number.isInteger(limit) ||
    (limit as number) < 1 ||
    (limit as number) > MAX_GIT_COMMITS_LIMIT
  ) {
    throw invalidArgument(
      'limit',
      `must be an integer from 1 to ${MAX_GIT_COMMITS_LIMIT}, got ${String(limit)}`,
    );
  }
}

/**
 * The most recent commits reachable from HEAD, newest first, like OpenHands'
 * `GET /api/git/commits`: the branch's plain history, with `hasMore` telling whether it holds
 * more than `limit`.
 *
 * - Outside any work tree, for a missing `path` and on an unborn branch: no commits.
 * - Subjects and author names longer than `MAX_GIT_COMMIT_SUBJECT_CHARS` /
 *   `MAX_GIT_COMMIT_AUTHOR_CHARS` are cut and end with `…`; git's output is bounded too.
 * - Signatures are never shown (`log.showSignature` would mix GPG output into the listing).
 * - A `path` that is not a directory and a bad `limit` are `INVALID_ARGUMENT`; git failures are
 *   `GIT_ERROR`; a repository outside `confineTo` is `FORBIDDEN`.
 */
export async function readGitCommits(options: ReadGitCommitsOptions): Promise<GitCommitsPage> {
  const { path: dir, signal, sandbox, confineTo } = options;
  const limit = options.limit ?? DEFAULT_GIT_COMMITS_LIMIT;
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) {
    throw invalidArgument('path', `must be an absolute path, got ${JSON.stringify(dir)}`);
  }
  validateCommitsLimit(limit);
  const none: GitCommitsPage = { commits: [], hasMore: false };
  const stats = await stat(dir).catch(() => undefined);
  if (stats === undefined) return none;
  if (!stats.isDirectory()) throw invalidArgument('path', `must be a directory: ${dir}`);
  const git: GitPlace = { cwd: dir, signal, sandbox, confineTo };
  if (!(await insideWorkTree(git))) return none;

  const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], git);
  if (head.exitCode !== 0) return none;
  // Fixed fields first, so a unit separator inside a name or subject cannot shift them.
  const format = '%H%x1f%h%x1f%aI%x1f%an%x1f%s';
  const output = await gitOutput(
    [
      'log',
      '-z',
      '--no-show-signature',
      `--format=${format}`,
      '-n',
      String(limit + 1),
      '--end-of-options',
      stripFinalNewline(head.stdout),
      '--',
    ],
    { ...git, maxBuffer: (limit + 1) * LOG_BYTES_PER_COMMIT },
  );
  const commits = splitNul(output).flatMap((record) => parseCommit(record) ?? []);
  return { commits: commits.slice(0, limit), hasMore: commits.length > limit };
}

function parseCommit(record: string): GitCommit | undefined {
  const [sha, shortSha, timestamp, author, ...subject] = record.split('\x1f');
  if (
    sha === undefined ||
    shortSha === undefined ||
    timestamp === undefined ||
    author === undefined
  ) {
    return undefined;
  }
  return {
    sha,
    shortSha,
    subject: cut(subject.join('\x1f'), MAX_GIT_COMMIT_SUBJECT_CHARS),
    author: cut(author, MAX_GIT_COMMIT_AUTHOR_CHARS),
    timestamp,
  };
}

/** `text` with at most `max` characters (code points), ending with `…` when it was cut. */
function cut(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, max).join('')}…`;
}
