import os from 'node:os';
import type { WorkspaceIdentity } from '@agent-workspace/protocol';
import type { Workspace } from '../workspace/workspace.js';
import { workspaceIdOf } from '../workspace/workspace-identity.js';

/**
 * The identity of any workspace: its own `identity()` when it has one, else the defaults a
 * `BaseWorkspace` would give (`workingDir` everywhere, `canonical`, an id from this machine's
 * host name, `kind` and `workingDir`).
 */
export async function identifyWorkspace(
  workspace: Workspace,
  signal?: AbortSignal,
): Promise<WorkspaceIdentity> {
  if (typeof workspace.identity === 'function') return workspace.identity({ signal });
  const { kind, workingDir } = workspace;
  return {
    workspaceId: workspaceIdOf({ host: os.hostname(), kind, anchor: workingDir }),
    anchor: workingDir,
    executionRoot: workingDir,
    cwd: workingDir,
    projectionKind: 'canonical',
    accessMode: 'exclusive_write',
  };
}
