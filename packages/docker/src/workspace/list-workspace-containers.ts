import type Docker from 'dockerode';
import { dockerError } from './docker-error.js';
import { DOCKER_LABELS } from './docker-labels.js';

/** Options of {@link listWorkspaceContainers}. */
export interface ListWorkspaceContainersOptions {
  /** The engine to ask. */
  docker: Docker;
  /** The workspace whose containers to list. */
  workspaceId: string;
  /** Aborts the list. */
  signal: AbortSignal;
}

/** Ids of the containers labelled with `workspaceId` (a create cut short may have made one). */
export async function listWorkspaceContainers({
  docker,
  workspaceId,
  signal,
}: ListWorkspaceContainersOptions): Promise<string[]> {
  try {
    const containers = await docker.listContainers({
      all: true,
      filters: { label: [`${DOCKER_LABELS.workspaceId}=${workspaceId}`] },
      abortSignal: signal,
    });
    return containers.map((container) => container.Id);
  } catch (error) {
    throw dockerError(error, { docker, action: 'list containers' });
  }
}
