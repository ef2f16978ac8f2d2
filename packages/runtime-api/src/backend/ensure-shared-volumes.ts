import { WorkspaceError } from '@agent-workspace/core';
import type Docker from 'dockerode';
import { engineCall } from './engine-call.js';
import type { SessionVolume } from './session-volumes.js';

/** Options of {@link ensureSharedVolumes}. */
export interface EnsureSharedVolumesOptions {
  docker: Docker;
  volumes: readonly SessionVolume[];
  signal?: AbortSignal | undefined;
}

/**
 * Creates each named volume of `volumes` missing on the engine, with its labels (the engine
 * answers an existing one as it is, so concurrent starts naming it agree), and checks that an
 * existing one carries them: a volume of that name made by anyone else is never mounted
 * (`PROVISIONING_ERROR` naming it). Bind mounts are left alone.
 */
export async function ensureSharedVolumes({
  docker,
  volumes,
  signal,
}: EnsureSharedVolumesOptions): Promise<void> {
  for (const volume of volumes) {
    if (volume.type !== 'volume') continue;
    const { source: name, labels } = volume;
    const created = await engineCall({ docker, action: `create volume ${name}`, signal }, () =>
      docker.createVolume({ Name: name, Labels: labels, abortSignal: signal }),
    );
    const info = await engineCall({ docker, action: `inspect volume ${name}`, signal }, () =>
      created.inspect({ abortSignal: signal }),
    );
    const stray = Object.entries(labels).find(([key, value]) => info.Labels?.[key] !== value);
    if (stray) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `volume ${name} exists on the engine without the label ${stray[0]}=${stray[1]}: it was not made by this server, so no session mounts it; remove or rename it`,
        details: { volume: name },
      });
    }
  }
}
