import { randomBytes } from 'node:crypto';
import { WorkspaceError } from '@agent-workspace/core';
import {
  commitSnapshot,
  DOCKER_SNAPSHOT_LABELS,
  type DockerSnapshot,
  listedSnapshot,
  removeDockerSnapshot,
} from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import type { FoundContainer } from './docker-runtime-backend.js';
import { engineCall, labelFilter } from './engine-call.js';
import type { BackendCallOptions, BackendSession } from './runtime-backend.js';
import type {
  BackendSnapshot,
  RuntimeSnapshotBackend,
  TakeSnapshotOptions,
} from './runtime-snapshot-backend.js';
import { RUNTIME_SNAPSHOT_LABELS } from './runtime-snapshot-labels.js';
import { sessionNotFound } from './session-errors.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** What {@link DockerRuntimeSnapshots} uses of its `DockerRuntimeBackend`. */
export interface DockerSnapshotHost {
  docker: Docker;
  namespace: string;
  /** The namespace's containers carrying `labels`, inspected. */
  find(labels: Record<string, string>, signal: AbortSignal | undefined): Promise<FoundContainer[]>;
  /** The engine's view of a container (a claimed one's session id read from its name). */
  session(info: Docker.ContainerInspectInfo): BackendSession;
}

/**
 * Snapshots of Runtime API sessions on one Docker engine: `commitSnapshot` of the session's
 * container (as `DockerWorkspace.snapshot()` does; a paused container stays paused), labelled
 * with the namespace and a random snapshot id (see `RUNTIME_SNAPSHOT_LABELS`; the session id is
 * its source workspace id).
 * The image's `Env` is its source image's plus bare names: no value of the session's
 * environment — neither the user's nor `SESSION_API_KEY_SHA256` — is in it. Lookups go by label
 * within the namespace and then by image id, so neither another namespace's snapshots nor
 * `DockerWorkspace` snapshots (which lack the labels) are ever listed, started from or removed.
 */
export class DockerRuntimeSnapshots implements RuntimeSnapshotBackend {
  readonly #host: DockerSnapshotHost;

  /** Works through `host`, the backend's engine access. */
  constructor(host: DockerSnapshotHost) {
    this.#host = host;
  }

  /** Commits the session's container; `NOT_FOUND` for an unknown runtime id. */
  async take(
    runtimeId: string,
    { name, signal }: TakeSnapshotOptions = {},
  ): Promise<BackendSnapshot> {
    const { docker, namespace } = this.#host;
    const found = await this.#host.find({ [RUNTIME_LABELS.runtimeId]: runtimeId }, signal);
    const session = found
      .map(({ id, info }) => ({ id, labels: this.#host.session(info).labels }))
      .find(({ labels }) => labels[RUNTIME_LABELS.sessionId]);
    const sessionId = session?.labels[RUNTIME_LABELS.sessionId];
    const image = session?.labels[RUNTIME_LABELS.image];
    if (!session || !sessionId || !image) throw sessionNotFound(runtimeId, namespace);
    const snapshotId = randomBytes(16).toString('hex');
    try {
      const committed = await commitSnapshot({
        docker,
        containerId: session.id,
        sourceWorkspaceId: sessionId,
        sourceImage: image,
        name: name ?? sessionId,
        labels: {
          [RUNTIME_SNAPSHOT_LABELS.namespace]: namespace,
          [RUNTIME_SNAPSHOT_LABELS.snapshotId]: snapshotId,
        },
        signal,
      });
      return toBackendSnapshot(committed, snapshotId);
    } catch (error) {
      // The container went between the lookup and the commit.
      if (WorkspaceError.isInstance(error) && /no such container/i.test(error.message)) {
        throw sessionNotFound(runtimeId, namespace);
      }
      throw error;
    }
  }

  /** The namespace's snapshot images, newest first. */
  async list({ signal }: BackendCallOptions = {}): Promise<BackendSnapshot[]> {
    return this.#images({}, signal);
  }

  /** The namespace's snapshot `snapshotId`, or `undefined`. */
  async get(
    snapshotId: string,
    { signal }: BackendCallOptions = {},
  ): Promise<BackendSnapshot | undefined> {
    const [found] = await this.#images(
      { [RUNTIME_SNAPSHOT_LABELS.snapshotId]: snapshotId },
      signal,
    );
    return found;
  }

  /**
   * Removes the snapshot image by its id (`removeDockerSnapshot`): `false` when the namespace
   * has none of that id (or it went meanwhile), `WORKSPACE_OCCUPIED` while a session's
   * container uses it.
   */
  async remove(snapshotId: string, { signal }: BackendCallOptions = {}): Promise<boolean> {
    const found = await this.get(snapshotId, { signal });
    if (!found) return false;
    try {
      await removeDockerSnapshot(found.imageId, { docker: this.#host.docker, signal });
      return true;
    } catch (error) {
      if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return false;
      throw error;
    }
  }

  /** The namespace's snapshot images carrying `labels` too. */
  async #images(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<BackendSnapshot[]> {
    const { docker, namespace } = this.#host;
    const filters = labelFilter({
      [DOCKER_SNAPSHOT_LABELS.snapshot]: 'true',
      [RUNTIME_SNAPSHOT_LABELS.namespace]: namespace,
      ...labels,
    });
    const images = await engineCall({ docker, action: 'list snapshot images', signal }, () =>
      docker.listImages({ filters: { label: filters }, abortSignal: signal }),
    );
    return images
      .map((image) =>
        toBackendSnapshot(
          listedSnapshot(image),
          image.Labels?.[RUNTIME_SNAPSHOT_LABELS.snapshotId] ?? '',
        ),
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }
}

/** The backend's view of a `DockerSnapshot` (its source workspace id is the session id). */
function toBackendSnapshot(snapshot: DockerSnapshot, snapshotId: string): BackendSnapshot {
  return {
    snapshotId,
    imageId: snapshot.id,
    sessionId: snapshot.sourceWorkspaceId,
    image: snapshot.sourceImage,
    name: snapshot.name,
    createdAt: snapshot.createdAt,
    sizeBytes: snapshot.sizeBytes,
  };
}
