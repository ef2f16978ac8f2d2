import { afterAll, afterEach, beforeAll } from 'vitest';
import { useTempDirs } from '../../occupancy/test-support/use-temp-dirs.js';
import { createWorkspacePool, type WorkspacePool } from '../workspace-pool.js';
import type { WorkspacePoolOptions } from '../workspace-pool-options.js';
import { registerTempDirKind, TEMP_DIR_KIND, type TempDirWorkspace } from './temp-dir-workspace.js';

/** Options of a temp-dir pool: everything but the kind and its config. */
export type TempDirPoolOptions = Omit<WorkspacePoolOptions<TempDirWorkspace>, 'kind' | 'config'>;

/**
 * Registers the temp-dir workspace kind for the file's tests and closes every pool a test made
 * after it. Returns `tempDir` (fresh directories, removed after each test), `track` (closes a
 * pool after the test) and `kindPool` (a pool of temp-dir workspaces under `root`, built from
 * the registry).
 */
export function useTempDirPools() {
  const tempDir = useTempDirs();
  const pools: WorkspacePool[] = [];
  let unregister: () => void;
  beforeAll(() => {
    unregister = registerTempDirKind();
  });
  // Registered after useTempDirs' removal, so it runs first: a pool left running would keep
  // refilling members into a directory being removed.
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });
  afterAll(() => {
    unregister();
  });
  const track = <P extends WorkspacePool<TempDirWorkspace>>(pool: P): P => {
    pools.push(pool as unknown as WorkspacePool);
    return pool;
  };
  const kindPool = (root: string, options: TempDirPoolOptions = {}) =>
    track(
      createWorkspacePool<TempDirWorkspace>({ kind: TEMP_DIR_KIND, config: { root }, ...options }),
    );
  return { tempDir, track, kindPool };
}
