import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RepositorySearch } from './repository-search.js';

/**
 * Finds the directories below `root` (`root` itself excluded) that hold a `.git` entry (a
 * directory, or a file as in worktrees and submodules), nearest first: the walk goes level by
 * level, in name order. It does not descend into a repository it found (that repository reports
 * its own nested ones) nor follow symbolic links, and it skips directories it cannot read.
 *
 * The walk is bounded by `search`: each directory read counts against `maxDirectories`, nothing
 * deeper than `maxDepth` (counted from the directory the search started at, `depth` segments
 * above `root`) is read, and it stops once it found one repository more than may still be
 * scanned or the time is up. Returns POSIX paths relative to `root`, sorted. Throws `ABORTED`
 * when the caller's signal fires.
 */
export async function findRepositories(
  root: string,
  search: RepositorySearch,
  depth = 0,
): Promise<string[]> {
  const found: string[] = [];
  const queue: string[] = [''];
  for (let next = 0; next < queue.length; next += 1) {
    search.throwIfAborted();
    if (!search.visitDirectory()) break;
    const relative = queue[next] as string;
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    if (relative !== '' && entries.some((entry) => entry.name === '.git')) {
      found.push(relative);
      if (found.length > search.repositoriesLeft) break;
      continue;
    }
    const children = entries
      .filter((entry) => entry.isDirectory() && entry.name !== '.git')
      .map((entry) => entry.name)
      .sort();
    const childDepth = depth + (relative === '' ? 1 : relative.split('/').length + 1);
    if (children.length > 0 && childDepth > search.limits.maxDepth) {
      search.prune();
      continue;
    }
    for (const name of children) queue.push(relative === '' ? name : `${relative}/${name}`);
  }
  return found.sort();
}
