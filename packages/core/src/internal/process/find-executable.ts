import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Directories searched for system tools whatever the caller's `PATH` says. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Absolute path of the first executable `name` in the directories of `searchPath` (relative
 * entries are skipped), or `undefined` when there is none.
 */
export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}
