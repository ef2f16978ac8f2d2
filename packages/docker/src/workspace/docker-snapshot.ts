import type Docker from 'dockerode';
import { DOCKER_SNAPSHOT_LABELS } from './docker-labels.js';

/** The repository every snapshot is committed to, each with a random tag. */
export const SNAPSHOT_REPOSITORY = 'agent-workspace/snapshot';

/**
 * A snapshot of a Docker workspace: an image committed from its container (see
 * `DockerWorkspace.snapshot()`), labelled `agent-workspace.snapshot=true`.
 *
 * It holds the container's whole filesystem as it was (the working directory with its git
 * history, installed packages, files anywhere outside mounts), but no running process, no bind
 * mount or volume content, and no secret of the environment: its `Env` is its source image's,
 * plus the bare names (no values) of the variables the container had besides, which Docker
 * reads as unset.
 */
export interface DockerSnapshot {
  /** Image id, `sha256:<hex>`. */
  id: string;
  /** `agent-workspace/snapshot:<random tag>`: what `fromSnapshot` takes (the id works too). */
  reference: string;
  /** Its name (`snapshot({ name })`, default the source container's name). */
  name: string;
  /** Size of the image as `docker images` reports it (the layers it shares with its source image included). */
  sizeBytes: number;
  /** ISO 8601 time it was taken. */
  createdAt: string;
  /** `workspaceId` of the workspace it was taken from. */
  sourceWorkspaceId: string;
  /** The image that workspace ran. */
  sourceImage: string;
}

/** What {@link toDockerSnapshot} reads: the common fields of an image listing and inspection. */
export interface SnapshotImageFields {
  id: string;
  repoTags: string[] | undefined;
  labels: Record<string, string> | null | undefined;
  sizeBytes: number;
  /** The engine's creation time: seconds since the epoch (listing) or ISO 8601 (inspection). */
  created: number | string;
}

/** True for an image labelled as one of our snapshots. */
export function isSnapshotImage(labels: Record<string, string> | null | undefined): boolean {
  return labels?.[DOCKER_SNAPSHOT_LABELS.snapshot] === 'true';
}

/** The {@link DockerSnapshot} of a snapshot image. */
export function toDockerSnapshot({
  id,
  repoTags,
  labels,
  sizeBytes,
  created,
}: SnapshotImageFields): DockerSnapshot {
  const tags = (repoTags ?? []).filter((tag) => tag !== '<none>:<none>');
  const ours = tags.find((tag) => tag.startsWith(`${SNAPSHOT_REPOSITORY}:`));
  const engineTime = new Date(typeof created === 'number' ? created * 1000 : created);
  return {
    id,
    reference: ours ?? tags[0] ?? id,
    name: labels?.[DOCKER_SNAPSHOT_LABELS.name] ?? '',
    sizeBytes,
    createdAt: labels?.[DOCKER_SNAPSHOT_LABELS.createdAt] || engineTime.toISOString(),
    sourceWorkspaceId: labels?.[DOCKER_SNAPSHOT_LABELS.sourceWorkspaceId] ?? '',
    sourceImage: labels?.[DOCKER_SNAPSHOT_LABELS.sourceImage] ?? '',
  };
}

/** The {@link DockerSnapshot} of a snapshot image as `docker image ls` lists it. */
export function listedSnapshot(image: Docker.ImageInfo): DockerSnapshot {
  return toDockerSnapshot({
    id: image.Id,
    repoTags: image.RepoTags,
    labels: image.Labels,
    sizeBytes: image.Size,
    created: image.Created,
  });
}

/** The {@link DockerSnapshot} of an inspected snapshot image. */
export function inspectedSnapshot(info: Docker.ImageInspectInfo): DockerSnapshot {
  return toDockerSnapshot({
    id: info.Id,
    repoTags: info.RepoTags,
    labels: info.Config?.Labels,
    sizeBytes: info.Size,
    created: info.Created,
  });
}
