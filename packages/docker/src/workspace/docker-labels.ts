import os from 'node:os';
import packageJson from '../../package.json' with { type: 'json' };

/** Prefix of every label agent-workspace puts on its containers; user labels may not use it. */
export const LABEL_PREFIX = 'agent-workspace.';

/** The labels on every container a `DockerWorkspace` creates. */
export const DOCKER_LABELS = {
  /** `true`: made by agent-workspace (what `reapOrphans` lists). */
  managed: 'agent-workspace.managed',
  /** The npm package that made it, `@agent-workspace/docker`. */
  package: 'agent-workspace.package',
  /** That package's version. */
  version: 'agent-workspace.version',
  /** The workspace's random id (`DockerWorkspace.workspaceId`). */
  workspaceId: 'agent-workspace.workspace-id',
  /** Process id of the owner process. */
  ownerPid: 'agent-workspace.owner-pid',
  /** `os.hostname()` of the owner's machine: pids only mean something there. */
  ownerHost: 'agent-workspace.owner-host',
  /** ISO 8601 creation time. */
  createdAt: 'agent-workspace.created-at',
  /** `true` when created with `keepAlive`: reaping never touches it. */
  keepAlive: 'agent-workspace.keep-alive',
} as const;

/**
 * The labels on every snapshot image (see `commitSnapshot`), beside `agent-workspace.package` /
 * `.version`; `listDockerSnapshots` lists images with `agent-workspace.snapshot=true`.
 */
export const DOCKER_SNAPSHOT_LABELS = {
  /** `true`: a snapshot committed by agent-workspace. */
  snapshot: 'agent-workspace.snapshot',
  /** The snapshot's human-readable name. */
  name: 'agent-workspace.snapshot-name',
  /** `workspaceId` of the workspace it was taken from. */
  sourceWorkspaceId: 'agent-workspace.snapshot-source-workspace-id',
  /** The image that workspace ran (an image reference, or a snapshot's for a fork). */
  sourceImage: 'agent-workspace.snapshot-source-image',
  /** ISO 8601 time of the snapshot. */
  createdAt: 'agent-workspace.snapshot-created-at',
} as const;

/** Options of {@link managedLabels}. */
export interface ManagedLabelsOptions {
  workspaceId: string;
  keepAlive: boolean;
  /** The caller's own labels, added first (they cannot use {@link LABEL_PREFIX}). */
  labels?: Record<string, string> | undefined;
}

/** The labels of a new workspace container, owned by this process. */
export function managedLabels({
  workspaceId,
  keepAlive,
  labels,
}: ManagedLabelsOptions): Record<string, string> {
  return {
    ...labels,
    [DOCKER_LABELS.managed]: 'true',
    [DOCKER_LABELS.package]: packageJson.name,
    [DOCKER_LABELS.version]: packageJson.version,
    [DOCKER_LABELS.workspaceId]: workspaceId,
    [DOCKER_LABELS.ownerPid]: String(process.pid),
    [DOCKER_LABELS.ownerHost]: os.hostname(),
    [DOCKER_LABELS.createdAt]: new Date().toISOString(),
    ...(keepAlive && { [DOCKER_LABELS.keepAlive]: 'true' }),
  };
}
