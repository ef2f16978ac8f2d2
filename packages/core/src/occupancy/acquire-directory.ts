import { abortedError } from '../errors/aborted-error.js';
import { heldLeaseIds } from '../workspace/occupancy-state.js';
import { assertLinux } from './assert-linux.js';
import { defaultLeaseDir, openLeaseDir } from './default-lease-dir.js';
import { withLeaseGuard } from './lease-guard.js';
import { directoryLeaseTarget } from './lease-key.js';
import { type OccupyingHolder, occupyingHolder } from './occupied-error.js';
import { surveyLeases } from './survey-leases.js';
import { checkLeaseOptions, takeLease } from './take-lease.js';
import type { AcquireWorkspaceOptions, WorkspaceLease } from './workspace-lease.js';

/** Options of {@link acquireDirectory}. */
export interface AcquireDirectoryOptions extends AcquireWorkspaceOptions {
  /**
   * A workspace object whose own leases do not refuse this one (it destroys its own tree). Its
   * `exclusive_write` lease keeps the lock; this lease still refuses everyone else.
   */
  exceptHeldBy?: object | undefined;
}

/**
 * Takes an occupancy lease on a directory of this machine: the same lease every workspace on the
 * directory (whatever its kind, through whatever symlink) contends for with `acquireWorkspace`.
 * Destructive operations hold an `exclusive_write` one while they remove a tree.
 *
 * @throws WorkspaceError `WORKSPACE_OCCUPIED` naming the holder(s); the rest as `acquireWorkspace`.
 */
export async function acquireDirectory(
  directory: string,
  options: AcquireDirectoryOptions,
): Promise<WorkspaceLease> {
  assertLinux();
  checkLeaseOptions(options);
  const { holderId, mode, signal, exceptHeldBy } = options;
  if (signal?.aborted) throw abortedError(signal);
  const leaseDir = await openLeaseDir(options.leaseDir ?? defaultLeaseDir());
  const target = await directoryLeaseTarget(directory);
  return takeLease({
    target,
    workspaceId: target.leaseKey,
    anchor: target.directory ?? directory,
    holderId,
    mode,
    leaseDir,
    signal,
    exceptLeaseIds: exceptHeldBy === undefined ? undefined : heldLeaseIds(exceptHeldBy),
  });
}

/** Options of {@link directoryHolders}. */
export interface DirectoryHoldersOptions {
  /** Directory of the lease records; default `defaultLeaseDir()`. */
  leaseDir?: string | undefined;
  /** A workspace object whose own leases are left out. */
  exceptHeldBy?: object | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * The live holders of a directory's lease (Linux only), as `WORKSPACE_OCCUPIED` lists them.
 * A snapshot: to keep others out while acting, hold {@link acquireDirectory} instead.
 */
export async function directoryHolders(
  directory: string,
  options: DirectoryHoldersOptions = {},
): Promise<OccupyingHolder[]> {
  assertLinux();
  const { signal, exceptHeldBy } = options;
  const leaseDir = await openLeaseDir(options.leaseDir ?? defaultLeaseDir());
  const { leaseKey } = await directoryLeaseTarget(directory);
  const except = exceptHeldBy === undefined ? new Set<string>() : heldLeaseIds(exceptHeldBy);
  const { live } = await withLeaseGuard({ leaseKey, signal }, () =>
    surveyLeases({ leaseDir, leaseKey }),
  );
  return live
    .filter((lease) => lease.leaseId === null || !except.has(lease.leaseId))
    .map(occupyingHolder);
}
