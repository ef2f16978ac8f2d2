import { WorkspaceError } from '@agent-workspace/core';
import { dockerStatus } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { delay, engineCall } from './engine-call.js';

/** Bound on waiting for a removed service's container to let go of its volume. */
const VOLUME_RELEASE_TIMEOUT_MS = 30_000;

/** Options of {@link removeLabelledVolumes}. */
export interface RemoveLabelledVolumesOptions {
  docker: Docker;
  /** Label filters (`key=value`) the volumes must all match. */
  labels: string[];
  signal?: AbortSignal | undefined;
}

/**
 * Removes this engine's volumes matching `labels`, waiting (bounded) while a removed task's
 * container still holds one; answers how many it removed. Past the bound, `PROVISIONING_ERROR`
 * naming the volume.
 */
export async function removeLabelledVolumes({
  docker,
  labels,
  signal,
}: RemoveLabelledVolumesOptions): Promise<number> {
  const deadline = Date.now() + VOLUME_RELEASE_TIMEOUT_MS;
  let removed = 0;
  for (;;) {
    const { Volumes } = await engineCall({ docker, action: 'list volumes', signal }, () =>
      docker.listVolumes({ filters: { label: labels }, abortSignal: signal }),
    );
    let inUse: string | undefined;
    for (const { Name } of Volumes ?? []) {
      await engineCall({ docker, action: `remove volume ${Name}`, signal }, async () => {
        try {
          await docker.getVolume(Name).remove({ abortSignal: signal });
          removed++;
        } catch (error) {
          const status = dockerStatus(error);
          // 409: the removed task's container still holds it.
          if (status === 409) inUse = Name;
          else if (status !== 404) throw error;
        }
      });
    }
    if (inUse === undefined) return removed;
    if (Date.now() >= deadline) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `volume ${inUse} is still in use ${VOLUME_RELEASE_TIMEOUT_MS / 1000} s after its service was removed; remove it with \`docker volume rm ${inUse}\``,
        details: { volume: inUse },
      });
    }
    await delay(250, signal);
  }
}
