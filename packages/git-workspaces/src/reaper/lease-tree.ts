import {
  acquireDirectory,
  directoryHolders,
  type OccupyingHolder,
  WorkspaceError,
} from '@agent-workspace/core';

/** Options of {@link leaseTree}. */
export interface LeaseTreeOptions {
  /** The managed tree. */
  path: string;
  /** What is about to happen, for the refusal and the lease's holder id (`destroy`, ...). */
  operation: string;
  /** Go on while others hold leases on the tree; the result lists them. */
  overrideLeases?: boolean | undefined;
  /** A workspace object whose own leases on the tree do not refuse (it closes its own tree). */
  exceptHeldBy?: object | undefined;
  /** Directory of the lease records; default core's `defaultLeaseDir()`. */
  leaseDir?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** A tree held for a destructive operation; release it when done. */
export interface TreeHold {
  /** True when other holders were overridden (`overrideLeases`). */
  forced: boolean;
  /** The holders that were overridden; empty unless `forced`. */
  holders: OccupyingHolder[];
  /** Frees the lease taken on the tree (nothing when forced or off Linux). */
  release(): Promise<void>;
}

/**
 * Takes an `exclusive_write` occupancy lease on a managed tree for a destructive operation: the
 * lease every workspace on the tree's directory contends for, whatever its kind, so no one can
 * start working in the tree until the operation releases it. Off Linux (no leases) it holds
 * nothing.
 *
 * @throws WorkspaceError `WORKSPACE_OCCUPIED` (field `path`) naming the holders, unless
 *   `overrideLeases`; then the result says `forced` and lists them.
 */
export async function leaseTree(options: LeaseTreeOptions): Promise<TreeHold> {
  const { path: tree, operation, overrideLeases = false, exceptHeldBy, leaseDir, signal } = options;
  try {
    const lease = await acquireDirectory(tree, {
      holderId: `git-workspaces ${operation} (pid ${process.pid})`,
      mode: 'exclusive_write',
      exceptHeldBy,
      leaseDir,
      signal,
    });
    return { forced: false, holders: [], release: () => lease.release() };
  } catch (error) {
    if (!WorkspaceError.isInstance(error)) throw error;
    if (error.code === 'NOT_SUPPORTED') {
      return { forced: false, holders: [], release: async () => {} };
    }
    if (error.code !== 'WORKSPACE_OCCUPIED') throw error;
    if (!overrideLeases) {
      throw new WorkspaceError({
        code: 'WORKSPACE_OCCUPIED',
        message: `refusing to ${operation} ${tree}: ${error.message}; release the lease or pass overrideLeases: true`,
        details: { ...error.details, field: 'path', path: tree },
      });
    }
    const holders = await directoryHolders(tree, { exceptHeldBy, leaseDir, signal });
    return { forced: true, holders, release: async () => {} };
  }
}
