import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from '../internal/is-process-alive.js';

/** Name prefix of a sandbox's scratch root, followed by its owner's pid and `-`. */
export const SCRATCH_ROOT_PREFIX = 'agent-workspace-sandbox-';

/** The `mkdtemp` prefix of a scratch root made by this process, in `base`. */
export function scratchRootPrefix(base: string): string {
  return path.join(base, `${SCRATCH_ROOT_PREFIX}${process.pid}-`);
}

/**
 * Removes the scratch roots in `base` that a process killed before its sandbox's `close()` left
 * behind: this user's, named after a pid that no longer runs. Failures are ignored (another
 * process may reap the same directory).
 */
export async function reapScratchRoots(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const owner = new RegExp(`^${SCRATCH_ROOT_PREFIX}(\\d+)-`).exec(name)?.[1];
      if (owner === undefined || isProcessAlive(Number(owner))) return;
      const dir = path.join(base, name);
      const stats = await lstat(dir).catch(() => undefined);
      if (!stats?.isDirectory() || stats.uid !== process.geteuid?.()) return;
      await rm(dir, { recursive: true, force: true }).catch(() => {});
    }),
  );
}
