import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkspaceIdentity } from '@agent-workspace/protocol';
import type { Workspace } from '../workspace/workspace.js';
import { workspaceIdOf } from '../workspace/workspace-identity.js';

/** What an occupancy lease is keyed by: one directory of this machine, or one remote workspace. */
export interface LeaseTarget {
  /** 32 hex digits naming the lease's sockets and record directory. */
  leaseKey: string;
  /** The real path of the execution root on this machine; `undefined` for a remote workspace. */
  directory: string | undefined;
}

/**
 * The real path of `directory` (symlinks resolved). A directory that does not exist (yet) is
 * keyed by its resolved path, as `realpath` cannot see it.
 */
export async function canonicalDirectory(directory: string): Promise<string> {
  const resolved = path.resolve(directory);
  try {
    return await realpath(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return resolved;
    throw error;
  }
}

/**
 * The lease of a directory of this machine: the first 32 hex digits of
 * `sha256("dir" NUL hostname NUL realpath(directory))`, whatever workspace is opened on it.
 */
export async function directoryLeaseTarget(directory: string): Promise<LeaseTarget> {
  const real = await canonicalDirectory(directory);
  const leaseKey = createHash('sha256')
    .update(['dir', os.hostname(), real].join('\0'))
    .digest('hex')
    .slice(0, 32);
  return { leaseKey, directory: real };
}

/**
 * The lease a workspace's identity names. A workspace whose id is the one this machine's host
 * name gives, for its kind or for `local` (`local`, git `worktree` and `clone`, every type that
 * does not name its own id, and a remote workspace whose agent-server runs on this machine),
 * lives in a directory here: it is keyed by the real path of its execution root, so two kinds of
 * workspace on one directory (or on two symlinked paths to it) share one lease. Any other
 * workspace (another machine's, a sandbox's) is keyed by its `workspaceId`.
 */
export async function workspaceLeaseTarget(
  workspace: Workspace,
  identity: WorkspaceIdentity,
): Promise<LeaseTarget> {
  const { workspaceId, anchor, executionRoot } = identity;
  const host = os.hostname();
  const here = [workspace.kind, 'local'].some(
    (kind) => workspaceIdOf({ host, kind, anchor, executionRoot }) === workspaceId,
  );
  if (here) return directoryLeaseTarget(executionRoot);
  return { leaseKey: workspaceId, directory: undefined };
}
