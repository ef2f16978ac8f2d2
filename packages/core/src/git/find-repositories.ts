import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.js';

/**
 * Finds the directories below `root` (at any depth, `root` itself excluded) that hold a `.git`
 * entry (a directory, or a file as in worktrees and submodules). It does not descend into a
 * repository it found (that repository reports its own nested ones) nor follow symbolic links,
 * and it skips directories it cannot read. Returns POSIX paths relative to `root`, sorted.
 */
export async function findRepositories(root: string, signal?: AbortSignal): Promise<string[]> {
  const found: string[] = [];
  const pending: string[] = [''];
  while (pending.length > 0) {
    if (signal?.aborted) {
      throw new WorkspaceError({
        code: 'ABORTED',
        message: 'the operation was aborted',
        cause: signal.reason,
      });
    }
    const relative = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    if (relative !== '' && entries.some((entry) => entry.name === '.git')) {
      found.push(relative);
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name !== '.git') {
        pending.push(relative === '' ? entry.name : `${relative}/${entry.name}`);
      }
    }
  }
  return found.sort();
}
