import { afterAll, beforeAll } from 'vitest';
import { useTempDirs } from '../../occupancy/test-support/use-temp-dirs.js';
import { createWorkspacePool, type WorkspacePool } from '../workspace-pool.js';
import type { WorkspacePoolOptions } from '../workspace-pool-options.js';
import { registerTempDirKind, TEMP_DIR_KIND, type TempDirWorkspace } from './temp-dir-workspace.js';

/** Options of a temp-dir pool: everything but the kind and its config. */
export type TempDirPoolOptions = Omit<WorkspacePoolOptions<TempDirWorkspace>, 'kind' | 'config'>;

/**
 * Registers the temp-dir workspace kind for the file's tests and closes every pool they made
 * afterwards. Returns `tempDir` (fresh directories, removed after the file), `track` (closes
 * any pool after the file) and `kindPool` (a pool of temp-dir workspaces under `root`, built
 * from the registry).
 */
export function useTempDirPools() {
  const tempDir = useTempDirs();
  const pools: WorkspacePool[] = [];
  let unregister: () => void;
  beforeAll(() => {
    unregister = registerTempDirKind();
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
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
