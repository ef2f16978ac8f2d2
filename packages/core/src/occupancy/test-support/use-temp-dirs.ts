import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * Returns a maker of temporary directories (real paths) that are all removed after each test.
 * Call it at the top of a test file, before hooks that must run ahead of the removal.
 */
export function useTempDirs(): (prefix: string) => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (prefix) => {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
    made.push(dir);
    return dir;
  };
}
