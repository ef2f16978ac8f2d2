import path from 'node:path';
import type { GitDiff } from '@agent-workspace/protocol';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { insideWorkTree, resolveCommitRange, validateSha } from './commit-range.js';
import { parseNameStatusRecords } from './parse-name-status.js';
import { type BaseRead, DEFAULT_MAX_DIFF_FILE_BYTES, locate, readAtBase } from './read-git-diff.js';
import { type GitPlace, gitOutput, stripFinalNewline } from './run-git.js';

/** Input of {@link readGitCommitDiff}. */
export interface ReadGitCommitDiffOptions {
  /** Absolute path of the file (it need not exist now). */
  path: string;
  /** The commit, 4 to 64 hex digits (`GIT_SHA_PATTERN`). */
  commit: string;
  /** Largest content accepted on either side; default `DEFAULT_MAX_DIFF_FILE_BYTES` (1 MiB). */
  maxFileBytes?: number | undefined;
  /** Aborting kills the running git call and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Run every git call inside this sandbox (`path` must be visible there). */
  sandbox?: CommandSandbox | undefined;
  /** Real path of the directory the repository must lie in (see `assertRepositoryInside`). */
  confineTo?: string | undefined;
}

/**
 * One file as one commit changed it, like OpenHands' `GET /api/git/diff?commit=`: `original` is
 * the file at the commit's first parent (nothing for a root commit), `modified` the file at the
 * commit, both read from git objects, never from disk, so a file deleted since still renders.
 *
 * - A side where the file is absent is `""`; outside any work tree both are `null`.
 * - A file the commit renamed diffs against its old path at the parent.
 * - Binary or non-UTF-8 content reads as `""`; a side over `maxFileBytes` is `INVALID_ARGUMENT`.
 * - A malformed `commit` is `INVALID_ARGUMENT` (field `commit`); one that names no commit of the
 *   repository is a `GIT_ERROR`; a repository outside `confineTo` is `FORBIDDEN`.
 */
export async function readGitCommitDiff(options: ReadGitCommitDiffOptions): Promise<GitDiff> {
  const { path: target, commit: sha, signal, sandbox, confineTo } = options;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_DIFF_FILE_BYTES;
  if (typeof target !== 'string' || !path.isAbsolute(target)) {
    throw invalidArgument('path', `must be an absolute path, got ${JSON.stringify(target)}`);
  }
  validateSha(sha, 'commit');
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 0) {
    throw invalidArgument('maxFileBytes', `must be a non-negative integer, got ${maxFileBytes}`);
  }
  const { dir, relative } = await locate(target);
  const git: GitPlace = { cwd: dir, signal, sandbox, confineTo };
  if (!(await insideWorkTree(git))) return { modified: null, original: null };

  const { commit, parent } = await resolveCommitRange(git, sha);
  const at = (base: string): BaseRead => ({ base, git, maxFileBytes, target });
  const modified = await readAtBase(at(commit), relative, false);
  let original = await readAtBase(at(parent), relative, false);
  if (original === undefined && modified !== undefined) {
    const source = await renameSource(git, parent, commit, relative);
    if (source !== undefined) original = await readAtBase(at(parent), source, true);
  }
  return { modified: modified ?? '', original: original ?? '' };
}

/** The root-relative old path when the commit renamed `relative` (from `git.cwd`). */
async function renameSource(
  git: GitPlace,
  parent: string,
  commit: string,
  relative: string,
): Promise<string | undefined> {
  const prefix = stripFinalNewline(await gitOutput(['rev-parse', '--show-prefix'], git));
  const diff = await gitOutput(
    ['diff', '--name-status', '-z', '-M', '--no-relative', '--no-ext-diff', parent, commit, '--'],
    git,
  );
  const rename = parseNameStatusRecords(diff).find(
    (record) => record.status.startsWith('R') && record.path === `${prefix}${relative}`,
  );
  return rename?.fromPath;
}
