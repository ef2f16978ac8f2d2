import { realpath } from 'node:fs/promises';
import path from 'node:path';

// The tail of each repository's queue; removed when the queue drains.
const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every task queued earlier for the same repository (by the real path of
 * `repositoryPath`) in this process has settled, so `git worktree add/remove/prune` never race
 * on the repository's `.git/worktrees` admin files. Tasks of different repositories run in
 * parallel. A failed task does not stop the queue.
 */
export async function serialisePerRepository<T>(
  repositoryPath: string,
  task: () => Promise<T>,
): Promise<T> {
  const key = await realpath(repositoryPath).catch(() => path.resolve(repositoryPath));
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
