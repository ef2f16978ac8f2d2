import { WorkspaceError } from '@agent-workspace/core';
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

/**
 * The image id of snapshot `reference` (an id, not the tag: what was checked is what runs);
 * `INVALID_CONFIG` naming `fromSnapshot` when it is missing or is not one of our snapshots.
 */
export async function resolveSnapshotImage(docker: Docker, reference: string): Promise<string> {
  const lookup = await findDockerSnapshot({ docker, idOrReference: reference });
  if (lookup.found === 'snapshot') return lookup.snapshot.id;
  const reason =
    lookup.found === 'none'
      ? `the Docker engine has no image ${reference}`
      : `image ${reference} is not an agent-workspace snapshot (no agent-workspace.snapshot=true label)`;
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid docker workspace options: fromSnapshot: ${reason}; see listDockerSnapshots()`,
    details: { kind: 'docker', fields: ['fromSnapshot'], fromSnapshot: reference },
  });
}
