import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { gitOrThrow } from './run-git.js';

/** How many paths {@link findUnsavedWork} reports at most. */
export const UNSAVED_PATHS_LIMIT = 20;

/** Options of {@link findUnsavedWork}. */
export interface FindUnsavedWorkOptions {
  /** The work tree. */
  path: string;
  /** Also count commits on local branches that no remote-tracking ref has (for clones). */
  unpushedCommits?: boolean | undefined;
  /** Symlinks the post-create step made: not work of the agent's. */
  ignoreSymlinks?: readonly string[] | undefined;
  signal?: AbortSignal | undefined;
}

/** What would be lost by deleting a tree. */
export interface UnsavedWork {
  /** Modified, staged, deleted or untracked (not ignored) paths, at most {@link UNSAVED_PATHS_LIMIT}. */
  paths: string[];
  /** How many such paths there are in all. */
  pathCount: number;
  /** Commits on local branches not on any remote-tracking ref (only when asked for). */
  unpushedCommits: number;
}

/** True when `work` holds anything. */
export function hasUnsavedWork(work: UnsavedWork): boolean {
  return work.pathCount > 0 || work.unpushedCommits > 0;
}

/**
 * Lists the uncommitted work of a tree: `git status --porcelain=v1 -z --untracked-files=all`
 * (modified, staged, deleted and untracked files; ignored ones are not work), and optionally
 * unpushed commits. Rejects with `GIT_ERROR` when git fails.
 */
export async function findUnsavedWork(options: FindUnsavedWorkOptions): Promise<UnsavedWork> {
  const { path: tree, signal } = options;
  // Both read-only, so they run at once.
  const [status, unpushed] = await Promise.all([
    gitOrThrow(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all'], {
      cwd: tree,
      signal,
    }),
    options.unpushedCommits
      ? gitOrThrow(['rev-list', '--count', '--branches', '--not', '--remotes'], {
          cwd: tree,
          signal,
        })
      : undefined,
  ]);
  const entries = status.split('\0');
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as string;
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const file = entry.slice(3);
    // A rename or copy is followed by its source path.
    if (code.includes('R') || code.includes('C')) index++;
    if (code === '??' && (await isOwnSymlink(tree, file, options.ignoreSymlinks))) continue;
    paths.push(file);
  }
  const unpushedCommits = unpushed === undefined ? 0 : Number.parseInt(unpushed.trim(), 10) || 0;
  return { paths: paths.slice(0, UNSAVED_PATHS_LIMIT), pathCount: paths.length, unpushedCommits };
}

/** True when `file` is one of the post-create symlinks and still a symlink. */
async function isOwnSymlink(
  tree: string,
  file: string,
  symlinks: readonly string[] | undefined,
): Promise<boolean> {
  if (!symlinks?.length) return false;
  const normal = path.posix.normalize(file.replace(/\/$/, ''));
  if (!symlinks.some((link) => path.posix.normalize(link) === normal)) return false;
  const stats = await lstat(path.join(tree, normal)).catch(() => undefined);
  return stats?.isSymbolicLink() === true;
}

/** A one-line description of `work` for error messages and reports. */
export function describeUnsavedWork(work: UnsavedWork): string {
  const parts: string[] = [];
  if (work.pathCount > 0) {
    const shown = work.paths.slice(0, 5).map((file) => JSON.stringify(file));
    const more = work.pathCount > shown.length ? ` and ${work.pathCount - shown.length} more` : '';
    parts.push(`${work.pathCount} uncommitted path(s): ${shown.join(', ')}${more}`);
  }
  if (work.unpushedCommits > 0) parts.push(`${work.unpushedCommits} unpushed commit(s)`);
  return parts.join('; ');
}
