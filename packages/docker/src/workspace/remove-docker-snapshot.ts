import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import type Docker from 'dockerode';
import { checkImageReference } from '../image/image-reference.js';
import { dockerError, dockerStatus } from './docker-error.js';
import { findDockerSnapshot } from './find-docker-snapshot.js';
import { type DockerConnectionOptions, resolveDocker } from './resolve-docker.js';

/** Options of {@link removeDockerSnapshot}. */
export interface RemoveDockerSnapshotOptions extends DockerConnectionOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Removes a snapshot image, given its reference or id. Refuses anything else:
 * `INVALID_ARGUMENT` (`details.field` `idOrReference`) for an image that is not one of our
 * snapshots or a malformed name, `NOT_FOUND` when there is no such image, and
 * `WORKSPACE_OCCUPIED` while containers (forks, running or stopped) still use it, naming them
 * in the message and in `details.containers`: close those workspaces first.
 *
 * @example
 * ```ts
 * const fork = await workspace.fork();
 * await fork.close();
 * await removeDockerSnapshot(fork.forkedFrom!.id);
 * ```
 */
export async function removeDockerSnapshot(
  idOrReference: string,
  options: RemoveDockerSnapshotOptions = {},
): Promise<void> {
  const problem = checkImageReference(idOrReference);
  if (problem !== undefined) throw invalidArgument('idOrReference', problem);
  const docker = resolveDocker(options);
  const lookup = await findDockerSnapshot({ docker, idOrReference });
  if (lookup.found === 'none') {
    throw new WorkspaceError({
      code: 'NOT_FOUND',
      message: `idOrReference: the Docker engine has no image ${idOrReference}`,
      details: { field: 'idOrReference', idOrReference },
    });
  }
  if (lookup.found === 'image') {
    throw invalidArgument(
      'idOrReference',
      `names image ${lookup.id}, which is not an agent-workspace snapshot (no agent-workspace.snapshot=true label): refusing to remove it`,
    );
  }
  const { id, reference } = lookup.snapshot;
  try {
    // By id: what was checked is what is removed, even if the tag moves meanwhile.
    await docker.getImage(id).remove({ abortSignal: options.signal });
  } catch (error) {
    if (dockerStatus(error) !== 409) {
      throw dockerError(error, { docker, action: `remove snapshot ${reference}` });
    }
    const users = await containersUsing(docker, id, options.signal);
    if (users.length === 0) {
      throw dockerError(error, { docker, action: `remove snapshot ${reference}` });
    }
    const named = users.map((user) => `${user.name} (${user.state})`).join(', ');
    throw new WorkspaceError({
      code: 'WORKSPACE_OCCUPIED',
      message: `snapshot ${reference} is still used by container(s) ${named}: close the workspaces forked from it (or remove those containers) first`,
      cause: error,
      details: { snapshot: id, reference, containers: users },
    });
  }
}

/** A container that runs, or ran, an image. */
interface ImageUser {
  id: string;
  name: string;
  state: string;
}

/** The containers, running or not, created from image `id`. */
async function containersUsing(
  docker: Docker,
  id: string,
  signal: AbortSignal | undefined,
): Promise<ImageUser[]> {
  try {
    const containers = await docker.listContainers({
      all: true,
      filters: { ancestor: [id] },
      abortSignal: signal,
    });
    return containers
      .filter((container) => container.ImageID === id)
      .map((container) => ({
        id: container.Id,
        name: (container.Names?.[0] ?? container.Id.slice(0, 12)).replace(/^\//, ''),
        state: container.State,
      }));
  } catch (error) {
    throw dockerError(error, { docker, action: 'list the containers using a snapshot' });
  }
}
