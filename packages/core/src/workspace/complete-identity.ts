import os from 'node:os';
import type { WorkspaceIdentity } from '@agent-workspace/protocol';
import { heldSharedReadLease, recordDescribedSession } from './occupancy-state.js';
import { type DescribedWorkspaceIdentity, workspaceIdOf } from './workspace-identity.js';

/** Input of {@link completeIdentity}. */
export interface CompleteIdentityOptions {
  /** The workspace object: its held lease decides `accessMode`, its session is recorded. */
  workspace: object;
  kind: string;
  workingDir: string;
  /** What the workspace type told of itself. */
  described: DescribedWorkspaceIdentity;
}

/**
 * A workspace's identity from what its type described, with `ContractWorkspace.identity`'s
 * defaults for the rest (see there). Records the described session id for occupancy.
 */
export function completeIdentity({
  workspace,
  kind,
  workingDir,
  described,
}: CompleteIdentityOptions): WorkspaceIdentity {
  recordDescribedSession(workspace, described.sessionId);
  const anchor = described.anchor ?? workingDir;
  const executionRoot = described.executionRoot ?? workingDir;
  return {
    workspaceId:
      described.workspaceId ?? workspaceIdOf({ host: os.hostname(), kind, anchor, executionRoot }),
    anchor,
    executionRoot,
    cwd: described.cwd ?? workingDir,
    projectionKind: described.projectionKind ?? 'canonical',
    accessMode: heldSharedReadLease(workspace) === undefined ? 'exclusive_write' : 'shared_read',
  };
}
