import { z } from 'zod';

/**
 * How a workspace's files come to be where commands run:
 * - `canonical`: the directory itself (a plain local or server directory);
 * - `git_worktree`: a git worktree of a repository (the anchor);
 * - `clone`: a separate clone of a repository (the anchor);
 * - `container`: the directory inside a container.
 */
export type WorkspaceProjectionKind = 'canonical' | 'git_worktree' | 'clone' | 'container';

/**
 * How the holder of a workspace object uses it: `shared_read` while that object holds a
 * shared-read occupancy lease (its file API refuses writes), `exclusive_write` otherwise.
 */
export type WorkspaceAccessMode = 'shared_read' | 'exclusive_write';

/**
 * Wire shape of a workspace identity: the answer of `GET /api/workspace/identity` (our
 * extension, announced as `WORKSPACE_IDENTITY_CAPABILITY`).
 */
export const workspaceIdentityWireSchema = z.object({
  workspace_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .describe('32 lowercase hex digits, stable for the same directory on the same machine'),
  anchor: z.string().min(1).describe('What the workspace is anchored at (directory or repository)'),
  execution_root: z.string().min(1).describe('Directory commands run under'),
  cwd: z.string().min(1).describe('Default working directory of commands'),
  projection_kind: z.enum(['canonical', 'git_worktree', 'clone', 'container']),
  access_mode: z.enum(['shared_read', 'exclusive_write']),
});

/** Wire JSON of a {@link WorkspaceIdentity}. */
export type WorkspaceIdentityWire = z.infer<typeof workspaceIdentityWireSchema>;

/** Which workspace an agent works in, where, and how (`Workspace.identity()` of core). */
export interface WorkspaceIdentity {
  /**
   * 32 hex digits. Two workspace objects opening the same directory on one machine get the same
   * id (occupancy leases key on it).
   */
  workspaceId: string;
  /** What the workspace is anchored at: the directory, or the repository a worktree or clone is of. */
  anchor: string;
  /** Directory commands run under (the worktree or clone itself for those projections). */
  executionRoot: string;
  /** Default working directory of commands: the workspace's `workingDir`. */
  cwd: string;
  /** How the files come to be where commands run. */
  projectionKind: WorkspaceProjectionKind;
  /** `shared_read` while the workspace object holds a shared-read lease, else `exclusive_write`. */
  accessMode: WorkspaceAccessMode;
}

/** Parses wire JSON into a {@link WorkspaceIdentity}. Throws a `ZodError` naming the bad field. */
export function workspaceIdentityFromWire(json: unknown): WorkspaceIdentity {
  const wire = workspaceIdentityWireSchema.parse(json);
  return {
    workspaceId: wire.workspace_id,
    anchor: wire.anchor,
    executionRoot: wire.execution_root,
    cwd: wire.cwd,
    projectionKind: wire.projection_kind,
    accessMode: wire.access_mode,
  };
}

/** The wire JSON of a {@link WorkspaceIdentity}. */
export function workspaceIdentityToWire(identity: WorkspaceIdentity): WorkspaceIdentityWire {
  return {
    workspace_id: identity.workspaceId,
    anchor: identity.anchor,
    execution_root: identity.executionRoot,
    cwd: identity.cwd,
    projection_kind: identity.projectionKind,
    access_mode: identity.accessMode,
  };
}
