import { createHash } from 'node:crypto';
import type { WorkspaceIdentity } from '@agent-workspace/protocol';

export type {
  WorkspaceAccessMode,
  WorkspaceIdentity,
  WorkspaceProjectionKind,
} from '@agent-workspace/protocol';

/**
 * What a workspace type says about its identity (`BaseWorkspace.describeIdentity()`): any of
 * the identity's fields but `accessMode` (which only the occupancy leases decide), plus the
 * session a worktree or clone belongs to. Missing fields get their defaults.
 */
export interface DescribedWorkspaceIdentity extends Partial<Omit<WorkspaceIdentity, 'accessMode'>> {
  /** The provisioning session (a worktree's or clone's), reported by `executionSnapshot()`. */
  sessionId?: string | undefined;
}

/** Options of `Workspace.identity()`. */
export interface WorkspaceIdentityOptions {
  /** Aborting rejects with `ABORTED` (a remote workspace stops asking its server). */
  signal?: AbortSignal | undefined;
}

/** Options of {@link workspaceIdOf}. */
export interface WorkspaceIdOfOptions {
  /** The machine the workspace lives on: `os.hostname()`, or a server's address. */
  host: string;
  /** Workspace kind (`'local'`, `'remote'`, ...). */
  kind: string;
  /** What the workspace is anchored at. */
  anchor: string;
  /** Directory commands run under; part of the id only when it differs from `anchor`. */
  executionRoot?: string | undefined;
}

/**
 * The stable id of a workspace: the first 32 hex digits of
 * `sha256(host NUL kind NUL anchor)`, with `NUL executionRoot` appended when the execution root
 * differs from the anchor (so two worktrees of one repository get different ids). Two processes
 * opening the same directory on one machine compute the same id.
 */
export function workspaceIdOf({ host, kind, anchor, executionRoot }: WorkspaceIdOfOptions): string {
  const parts = [host, kind, anchor];
  if (executionRoot !== undefined && executionRoot !== anchor) parts.push(executionRoot);
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32);
}
