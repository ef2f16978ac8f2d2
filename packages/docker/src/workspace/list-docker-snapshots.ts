import type Docker from 'dockerode';
import { dockerError } from './docker-error.js';
import { DOCKER_SNAPSHOT_LABELS } from './docker-labels.js';
import { type DockerSnapshot, listedSnapshot } from './docker-snapshot.js';
import { type DockerConnectionOptions, resolveDocker } from './resolve-docker.js';

/** Options of {@link listDockerSnapshots}. */
export interface ListDockerSnapshotsOptions extends DockerConnectionOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Every snapshot on the engine (images labelled `agent-workspace.snapshot=true`), with its
 * size, newest first. An unreachable engine is `CONNECTION_ERROR`.
 *
 * @example
 * ```ts
 * for (const snapshot of await listDockerSnapshots()) console.log(snapshot.name, snapshot.sizeBytes);
 * ```
 */
export async function listDockerSnapshots(
  options: ListDockerSnapshotsOptions = {},
): Promise<DockerSnapshot[]> {
  const docker = resolveDocker(options);
  let images: Docker.ImageInfo[];
  try {
    images = await docker.listImages({
      filters: { label: [`${DOCKER_SNAPSHOT_LABELS.snapshot}=true`] },
      abortSignal: options.signal,
    });
  } catch (error) {
    throw dockerError(error, { docker, action: 'list snapshot images' });
  }
  return images
    .map(listedSnapshot)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}
