import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitChange, GitChangesTruncation } from '@agent-workspace/protocol';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { assertRepositoryInside } from './assert-repository-inside.js';
import { findRepositories } from './find-repositories.js';
import { parseNameStatus, splitNul } from './parse-name-status.js';
import { RepositorySearch, type RepositorySearchLimits } from './repository-search.js';
import { resolveBaseRef, validateBaseOptions } from './resolve-base-ref.js';
import {
  type GitPlace,
  gitFailure,
  gitOutput,
  isNotRepositoryError,
  runGit,
  stripFinalNewline,
} from './run-git.js';

/** Input of {@link readGitChanges}. */
export interface ReadGitChangesOptions {
  /**
   * Absolute path of the directory asked about: a repository root, a directory inside a work
   * tree, or a plain directory that contains repositories.
   */
  path: string;
  /** Base ref; default: the display policy (see {@link resolveBaseRef}). */
  ref?: string | undefined;
  /** Aborting kills the running git call and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /**
   * Run every git call inside this sandbox (`path` must be visible there). The directory
   * walks and `.git` probes of this function stay on the host.
   */
  sandbox?: CommandSandbox | undefined;
  /**
   * Real path of the directory everything must stay in: repositories found (the one asked
   * about and nested ones) whose work tree, git directory, common directory or object
   * alternates lie outside it are `FORBIDDEN`, and git never looks above it for a repository.
   */
  confineTo?: string | undefined;
  /**
   * Bounds of the search for nested repositories: depth, repositories scanned, directories read
   * and time. Each one left out is its `DEFAULT_REPOSITORY_SEARCH_LIMITS` value (6 levels, 100
   * repositories, 20 000 directories, 5 s).
   */
  searchLimits?: Partial<RepositorySearchLimits> | undefined;
  /**
   * Called once, before the result is returned, when the search for nested repositories stopped
   * at one of `searchLimits`: with the bound (`time`, `repositories` or `directories` when one of
   * them ended the search, else `depth`). The result then holds what was found until then.
   */
  onTruncated?: ((truncation: GitChangesTruncation) => void) | undefined;
}

/**
 * Lists what changed under a directory, relative to a base ref, like the OpenHands
 * `GET /api/git/changes` route but with its parsing defects fixed.
 *
 * - Paths are POSIX, relative to `path` (not to the repository root), sorted by their UTF-8
 *   bytes; a directory inside a work tree only reports changes below it.
 * - Tracked changes come from `git diff --name-status -z -M <base>` (work tree against the base,
 *   staged changes included): renames are one `MOVED` entry with the new path, copies `ADDED`,
 *   type changes and unmerged paths `UPDATED`. Untracked, non-ignored files are `ADDED`.
 * - Base: `ref` when given, else the display policy of {@link resolveBaseRef}; an unborn branch
 *   compares against the empty tree, so every file is `ADDED`.
 * - Nested repositories (found in git's untracked listing, where they show as `dir/`, and as
 *   `.git` entries above reported paths) are scanned on their own and their entries prefixed
 *   with their directory; the parent's entries inside them are dropped (matching whole path
 *   segments, so a nested `foo` never hides `foobar/x`). Nested repositories inside ignored
 *   directories are not scanned. Submodules and other gitlinks are reported as the parent sees
 *   them (one `UPDATED`/`ADDED`/`DELETED` entry for the submodule path), not scanned inside.
 * - A directory that is not in a work tree is searched for repositories (level by level, no
 *   symlinks followed); with none below, the result is `[]`. A missing `path` also gives `[]`; a
 *   `path` that is not a directory is `INVALID_ARGUMENT`.
 * - The search for nested repositories is bounded by `searchLimits` (depth, repositories,
 *   directories, time); when it stops at one, the changes found so far are returned and
 *   `onTruncated` says which bound it was. A bad limit is `INVALID_ARGUMENT`.
 * - When `ref` does not resolve in a nested repository, that repository is skipped; elsewhere it
 *   is a `GIT_ERROR`, as is any other git failure (git's standard error is in the message).
 * - Each git call is bounded by 30 s; nothing is written to the repository (no optional locks).
 */
export async function readGitChanges(options: ReadGitChangesOptions): Promise<GitChange[]> {
  const { path: target, ref, signal, sandbox, confineTo } = options;
  if (typeof target !== 'string' || !path.isAbsolute(target)) {
    throw invalidArgument('path', `must be an absolute path, got ${JSON.stringify(target)}`);
  }
  validateBaseOptions(ref, undefined);
  const search = new RepositorySearch(options.searchLimits, signal);
  const stats = await stat(target).catch(() => undefined);
  if (stats === undefined) return [];
  if (!stats.isDirectory()) throw invalidArgument('path', `must be a directory: ${target}`);

  const unique = new Map<string, GitChange>();
  const lanes = { free: EXTRA_NESTED_SCANS };
  const scan: Scan = { ref, git: { signal, sandbox, confineTo }, search, lanes };
  for (const change of await collect(target, 0, scan)) {
    if (!unique.has(change.path)) unique.set(change.path, change);
  }
  if (search.truncated !== undefined) options.onTruncated?.(search.truncated);
  return [...unique.values()].sort((a, b) =>
    Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')),
  );
}

/** One `readGitChanges` call: its base ref, how git runs, and the bounded search. */
interface Scan {
  ref: string | undefined;
  /** How git runs for the directory asked about; nested ones run under the search's signal. */
  git: Omit<GitPlace, 'cwd'>;
  search: RepositorySearch;
  /** Lanes for nested scans beyond the first, shared by every level of the call. */
  lanes: { free: number };
}

/**
 * Changes under `dir` (`depth` segments below the directory asked about, 0 for that one),
 * relative to it, including those of repositories nested below.
 */
async function collect(dir: string, depth: number, scan: Scan): Promise<GitChange[]> {
  const { ref, search } = scan;
  const nested = depth > 0;
  const git: GitPlace = { ...scan.git, ...(nested && { signal: search.signal }), cwd: dir };
  const probeArgs = ['rev-parse', '--is-inside-work-tree'];
  const probe = await runGit(probeArgs, git);
  if (probe.exitCode !== 0) {
    if (!isNotRepositoryError(probe.stderr)) throw gitFailure(probeArgs, probe);
    return collectNested(dir, depth, await findRepositories(dir, search, depth), scan);
  }
  // "false" inside a .git directory or a bare repository: there is no work tree to report.
  if (stripFinalNewline(probe.stdout) !== 'true') return [];
  await assertRepositoryInside(git);

  let base: string;
  try {
    base = await resolveBaseRef({ ...git, ref });
  } catch (error) {
    // An explicit ref names a commit of the repository asked about, not of its nested ones.
    if (nested && ref !== undefined && WorkspaceError.isInstance(error, 'GIT_ERROR')) return [];
    throw error;
  }
  const [diff, others] = await Promise.all([
    gitOutput(
      ['diff', '--name-status', '-z', '-M', '--relative', '--no-ext-diff', base, '--'],
      git,
    ),
    gitOutput(['ls-files', '--others', '--exclude-standard', '-z'], git),
  ]);

  const changes = parseNameStatus(diff);
  const repositories: string[] = [];
  for (const entry of splitNul(others)) {
    // Without --directory, only a nested repository is listed as a directory ("dir/").
    if (entry.endsWith('/')) repositories.push(entry.slice(0, -1));
    else changes.push({ status: 'ADDED', path: entry });
  }
  repositories.push(...(await repositoriesAbove(dir, changes, search)));
  const own = changes.filter(
    (change) => !repositories.some((repository) => isSameOrInside(change.path, repository)),
  );
  return [...own, ...(await collectNested(dir, depth, repositories, scan))];
}

/**
 * Repositories that `git ls-files --others` cannot show as `dir/` because the parent tracks files
 * in their directory: any directory holding a `.git` above a reported path (outermost only).
 */
async function repositoriesAbove(
  dir: string,
  changes: readonly GitChange[],
  search: RepositorySearch,
): Promise<string[]> {
  const ancestors = new Set<string>();
  for (const change of changes) {
    const segments = change.path.split('/');
    for (let length = 1; length < segments.length; length += 1) {
      ancestors.add(segments.slice(0, length).join('/'));
    }
  }
  const found: string[] = [];
  // Shorter paths first, so a repository inside a found one is left to the recursion.
  for (const ancestor of [...ancestors].sort((a, b) => a.length - b.length)) {
    if (found.some((repository) => isSameOrInside(ancestor, repository))) continue;
    search.throwIfAborted();
    if (!search.visitDirectory()) break;
    if (await lstat(path.join(dir, ancestor, '.git')).catch(() => undefined)) found.push(ancestor);
  }
  return found;
}

/**
 * Nested repositories scanned at the same time as the first, across one whole call: each scan
 * is a few git calls in a row that mostly wait on git starting, so a few run side by side.
 */
const EXTRA_NESTED_SCANS = 3;

/**
 * Changes of the repositories below `dir` (itself `depth` segments deep), prefixed with their
 * directory, as far as the search's bounds allow. Repositories are taken in order; while lanes
 * of the call's {@link EXTRA_NESTED_SCANS} are free, several are scanned at once. The first
 * failure stops taking new ones and is thrown once those in flight have ended.
 */
async function collectNested(
  dir: string,
  depth: number,
  repositories: readonly string[],
  scan: Scan,
): Promise<GitChange[]> {
  const { search, lanes } = scan;
  const parts: GitChange[][] = [];
  let next = 0;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  const work = async (): Promise<void> => {
    while (!stopped && next < repositories.length) {
      const index = next++;
      const repository = repositories[index] as string;
      const repositoryDepth = depth + repository.split('/').length;
      if (!search.enterRepository(repositoryDepth)) {
        stopped ||= search.ended;
        continue;
      }
      try {
        const inner = await collect(path.join(dir, repository), repositoryDepth, scan);
        parts[index] = inner.map((change) => ({
          status: change.status,
          path: `${repository}/${change.path}`,
        }));
      } catch (error) {
        stopped = true;
        if (!search.timedOut(error)) failure ??= { error };
      }
    }
  };
  const extra = Math.max(0, Math.min(lanes.free, repositories.length - 1));
  lanes.free -= extra;
  const borrowed = Array.from({ length: extra }, () =>
    work().finally(() => {
      lanes.free += 1;
    }),
  );
  await Promise.allSettled([work(), ...borrowed]);
  if (failure !== undefined) throw failure.error;
  return parts.flat();
}

/** True when POSIX `candidate` is `parent` or below it, comparing whole path segments. */
export function isSameOrInside(candidate: string, parent: string): boolean {
  return candidate === parent || candidate.startsWith(`${parent}/`);
}
