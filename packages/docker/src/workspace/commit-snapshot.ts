import { randomBytes } from 'node:crypto';
import { abortedError, invalidArgument } from '@agent-workspace/core';
import type Docker from 'dockerode';
import packageJson from '../../package.json' with { type: 'json' };
import { dockerError } from './docker-error.js';
import { DOCKER_LABELS, DOCKER_SNAPSHOT_LABELS } from './docker-labels.js';
import { type DockerSnapshot, inspectedSnapshot, SNAPSHOT_REPOSITORY } from './docker-snapshot.js';
import { retryFreeze } from './retry-freeze.js';
import { snapshotCommitConfig } from './snapshot-commit-config.js';

/** Longest snapshot name. */
const MAX_NAME_LENGTH = 200;

/** Options of {@link commitSnapshot}. */
export interface CommitSnapshotOptions {
  docker: Docker;
  /** Id or name of the container to commit. */
  containerId: string;
  /** `workspaceId` of the workspace the container belongs to. */
  sourceWorkspaceId: string;
  /** The image that workspace runs, as its options name it. */
  sourceImage: string;
  /** Name of the snapshot (1 to 200 printable characters). */
  name: string;
  /** More labels of the snapshot image (e.g. its owner's); the snapshot's own labels win. */
  labels?: Record<string, string> | undefined;
  /**
   * Checked before and after the commit, not during it: an engine commit cannot be cancelled,
   * so an abort that arrives meanwhile removes the new image and rejects with `ABORTED`.
   */
  signal?: AbortSignal | undefined;
}

/** Checks a snapshot name; `INVALID_ARGUMENT` naming `name` otherwise. */
export function checkSnapshotName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH)
    throw invalidArgument('name', `must be 1 to ${MAX_NAME_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw invalidArgument('name', 'must not contain control characters');
  return name;
}

/**
 * Commits a container to a snapshot image `agent-workspace/snapshot:<random tag>` (`docker
 * commit --pause`: the container is frozen while its filesystem is read, then thawed; a paused
 * one stays paused; a freeze the runtime gave up on is tried again, see `retryFreeze`). The
 * image is labelled (see `DOCKER_SNAPSHOT_LABELS`) and carries no value of the container's
 * environment beyond its source image's own (see `snapshotCommitConfig`): no session key, no
 * `env` or `forwardEnv` value. Bind mounts and volumes are not part of it.
 */
export async function commitSnapshot({
  docker,
  containerId,
  sourceWorkspaceId,
  sourceImage,
  name,
  labels,
  signal,
}: CommitSnapshotOptions): Promise<DockerSnapshot> {
  checkSnapshotName(name);
  if (signal?.aborted) throw abortedError(signal);
  const container = docker.getContainer(containerId);
  let containerInfo: Docker.ContainerInspectInfo;
  let imageInfo: Docker.ImageInspectInfo;
  try {
    containerInfo = await container.inspect({ abortSignal: signal });
    // By id: the image the container was created from, whatever its tag names now.
    imageInfo = await docker.getImage(containerInfo.Image).inspect();
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    throw dockerError(error, { docker, action: `inspect container ${containerId.slice(0, 12)}` });
  }
  if (signal?.aborted) throw abortedError(signal);
  const createdAt = new Date().toISOString();
  const body = snapshotCommitConfig({
    imageConfig: imageInfo.Config,
    containerConfig: containerInfo.Config,
    labels: {
      ...labels,
      [DOCKER_LABELS.package]: packageJson.name,
      [DOCKER_LABELS.version]: packageJson.version,
      [DOCKER_SNAPSHOT_LABELS.snapshot]: 'true',
      [DOCKER_SNAPSHOT_LABELS.name]: name,
      [DOCKER_SNAPSHOT_LABELS.sourceWorkspaceId]: sourceWorkspaceId,
      [DOCKER_SNAPSHOT_LABELS.sourceImage]: sourceImage,
      [DOCKER_SNAPSHOT_LABELS.createdAt]: createdAt,
    },
  });
  const tag = randomBytes(12).toString('hex');
  let id: string;
  try {
    // `_query` / `_body` split the options between the URL and the JSON body.
    const result = (await retryFreeze(
      () =>
        container.commit({
          _query: {
            container: containerInfo.Id,
            repo: SNAPSHOT_REPOSITORY,
            tag,
            pause: true,
            comment: `agent-workspace snapshot ${JSON.stringify(name)} of workspace ${sourceWorkspaceId}`,
          },
          _body: body,
        }),
      { signal },
    )) as { Id: string };
    id = result.Id;
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    throw dockerError(error, { docker, action: `commit container ${containerId.slice(0, 12)}` });
  }
  const image = docker.getImage(id);
  if (signal?.aborted) {
    await image.remove().catch(() => {});
    throw abortedError(signal);
  }
  try {
    return {
      ...inspectedSnapshot(await image.inspect()),
      reference: `${SNAPSHOT_REPOSITORY}:${tag}`,
    };
  } catch (error) {
    throw dockerError(error, { docker, action: `inspect snapshot ${id}` });
  }
}
