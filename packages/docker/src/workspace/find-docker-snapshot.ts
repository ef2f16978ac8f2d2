import type Docker from 'dockerode';
import { dockerError, dockerStatus } from './docker-error.js';
import { type DockerSnapshot, inspectedSnapshot, isSnapshotImage } from './docker-snapshot.js';

/** Options of {@link findDockerSnapshot}. */
export interface FindDockerSnapshotOptions {
  docker: Docker;
  /** A snapshot's reference or image id. */
  idOrReference: string;
}

/** What {@link findDockerSnapshot} found: no image, an image that is no snapshot of ours, or one. */
export type DockerSnapshotLookup =
  | { found: 'none' }
  | { found: 'image'; id: string }
  | { found: 'snapshot'; snapshot: DockerSnapshot };

/**
 * Looks `idOrReference` up on the engine. The snapshot's `id` is what later calls should use:
 * a tag can be moved to another image between a check and its use, an id cannot.
 */
export async function findDockerSnapshot({
  docker,
  idOrReference,
}: FindDockerSnapshotOptions): Promise<DockerSnapshotLookup> {
  let info: Docker.ImageInspectInfo;
  try {
    info = await docker.getImage(idOrReference).inspect();
  } catch (error) {
    if (dockerStatus(error) === 404) return { found: 'none' };
    throw dockerError(error, { docker, action: `inspect image ${idOrReference}` });
  }
  if (!isSnapshotImage(info.Config?.Labels)) return { found: 'image', id: info.Id };
  return { found: 'snapshot', snapshot: inspectedSnapshot(info) };
}
