import type Docker from 'dockerode';
import { dockerError, dockerStatus } from './docker-error.js';

/** Options of {@link removeContainer}. */
export interface RemoveContainerOptions {
  docker: Docker;
  /** Container id or name. */
  id: string;
  /** Seconds `docker stop` waits before SIGKILL; `0` skips the graceful stop. */
  stopTimeoutSeconds: number;
  signal?: AbortSignal | undefined;
}

/**
 * Stops (gracefully, briefly) and force-removes a container with its anonymous volumes.
 * A container that is already stopped, being removed or gone is fine.
 */
export async function removeContainer({
  docker,
  id,
  stopTimeoutSeconds,
  signal,
}: RemoveContainerOptions): Promise<void> {
  const container = docker.getContainer(id);
  if (stopTimeoutSeconds > 0) {
    try {
      await container.stop({ t: stopTimeoutSeconds, abortSignal: signal });
    } catch (error) {
      // 304 already stopped, 404 gone, 409 being removed; remove() decides.
      if (signal?.aborted) throw error;
    }
  }
  try {
    await container.remove({ force: true, v: true, abortSignal: signal });
  } catch (error) {
    const status = dockerStatus(error);
    if (status === 404 || status === 409) return;
    throw dockerError(error, { docker, action: `remove container ${id.slice(0, 12)}` });
  }
}
