import { dockerStatus } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { engineCall, labelFilter } from './engine-call.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** Prefix of a pause marker's volume name; the session's runtime id follows. */
const PAUSE_MARKER_PREFIX = 'agent-workspace-paused-';

/** Options of {@link PauseMarkers}. */
export interface PauseMarkersOptions {
  docker: Docker;
  /** The backend's namespace: markers carry it, and only its own are read. */
  namespace: string;
}

/**
 * The durable record that a Docker session is paused. `docker pause` freezes processes, but the
 * engine forgets it when it restarts: the frozen container comes back exited, like one that
 * crashed. A marker says which exited containers were paused, so they stay `paused` and `/resume`
 * starts them again with their files. A marker is an empty volume named after the runtime id and
 * labelled with the namespace: the engine is the only record of a session, and a container's
 * labels cannot change after it is created.
 */
export class PauseMarkers {
  readonly #docker: Docker;
  readonly #namespace: string;

  constructor({ docker, namespace }: PauseMarkersOptions) {
    this.#docker = docker;
    this.#namespace = namespace;
  }

  /** Records `runtimeId` as paused (idempotent: the engine answers an existing volume). */
  async mark(runtimeId: string, signal: AbortSignal | undefined): Promise<void> {
    const docker = this.#docker;
    const Name = pauseMarkerName(runtimeId);
    await engineCall({ docker, action: `create volume ${Name}`, signal }, () =>
      docker.createVolume({
        Name,
        Labels: {
          [RUNTIME_LABELS.namespace]: this.#namespace,
          [RUNTIME_LABELS.runtimeId]: runtimeId,
          [RUNTIME_LABELS.pauseMarker]: 'true',
        },
        abortSignal: signal,
      } as Docker.VolumeCreateOptions),
    );
  }

  /** Removes the marker of `runtimeId`; nothing when there is none. */
  async clear(runtimeId: string, signal: AbortSignal | undefined): Promise<void> {
    const docker = this.#docker;
    const name = pauseMarkerName(runtimeId);
    await engineCall({ docker, action: `remove volume ${name}`, signal }, async () => {
      try {
        await docker.getVolume(name).remove({ abortSignal: signal });
      } catch (error) {
        if (dockerStatus(error) !== 404) throw error;
      }
    });
  }

  /** The runtime ids of this namespace marked paused (only `runtimeId`'s when given). */
  async marked(
    signal: AbortSignal | undefined,
    runtimeId?: string | undefined,
  ): Promise<Set<string>> {
    const docker = this.#docker;
    const labels = labelFilter({
      [RUNTIME_LABELS.namespace]: this.#namespace,
      [RUNTIME_LABELS.pauseMarker]: 'true',
      ...(runtimeId !== undefined && { [RUNTIME_LABELS.runtimeId]: runtimeId }),
    });
    const { Volumes } = await engineCall({ docker, action: 'list volumes', signal }, () =>
      docker.listVolumes({ filters: { label: labels }, abortSignal: signal }),
    );
    return new Set(
      (Volumes ?? [])
        .map((volume) => volume.Labels?.[RUNTIME_LABELS.runtimeId])
        .filter((id): id is string => id !== undefined),
    );
  }
}

/** The volume name of `runtimeId`'s pause marker. */
export function pauseMarkerName(runtimeId: string): string {
  return `${PAUSE_MARKER_PREFIX}${runtimeId}`;
}
