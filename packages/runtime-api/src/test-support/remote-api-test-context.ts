import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { describe, inject } from 'vitest';
import { RUNTIME_SNAPSHOT_LABELS } from '../backend/runtime-snapshot-labels.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';

/** Bound on waiting for removed services' containers to let go of their volumes. */
const VOLUME_RELEASE_TIMEOUT_MS = 30_000;

/** What a Runtime API test file works with. */
export interface RemoteApiTestContext {
  docker: Docker;
  /** The agent-server image sessions run. */
  image: string;
  /** Set when the suite must be skipped. */
  skipReason: string | undefined;
  /** A label namespace of this test file alone. */
  namespace: string;
  /** `describe`, or a loudly announced `describe.skip` without an engine. */
  describe: (name: string, factory: () => void) => void;
  /**
   * Removes every service, container, snapshot image and volume of {@link namespace}; for
   * `afterAll`.
   */
  cleanup(): Promise<void>;
}

/** Sets up a test file against the engine, swarm and image checked by the global setup. */
export function remoteApiTestContext(): RemoteApiTestContext {
  const { image, skipReason } = inject('remoteApiTest');
  const docker = new Docker();
  const namespace = `test-${randomUUID().slice(0, 8)}`;
  const filters = { label: [`${RUNTIME_LABELS.namespace}=${namespace}`] };
  const ignore = () => {};
  return {
    docker,
    image,
    skipReason,
    namespace,
    describe: (name, factory) => {
      if (skipReason) console.warn(`\n!!! SKIPPING ${name}: ${skipReason}\n`);
      (skipReason ? describe.skip : describe)(name, factory);
    },
    cleanup: async () => {
      if (skipReason) return;
      const services = await docker.listServices({ filters });
      await Promise.all(services.map(({ ID }) => docker.getService(ID).remove().catch(ignore)));
      const containers = await docker.listContainers({ all: true, filters });
      await Promise.all(
        containers.map(({ Id }) =>
          docker.getContainer(Id).remove({ force: true, v: true }).catch(ignore),
        ),
      );
      const snapshots = await docker.listImages({
        filters: { label: [`${RUNTIME_SNAPSHOT_LABELS.namespace}=${namespace}`] },
      });
      await Promise.all(
        snapshots.map(({ Id }) => docker.getImage(Id).remove({ force: true }).catch(ignore)),
      );
      // Removed services' containers go asynchronously; their volumes are free after.
      const deadline = Date.now() + VOLUME_RELEASE_TIMEOUT_MS;
      for (;;) {
        const { Volumes } = await docker.listVolumes({ filters });
        const left = await Promise.all(
          (Volumes ?? []).map(({ Name }) =>
            docker
              .getVolume(Name)
              .remove()
              .then(
                () => false,
                () => true,
              ),
          ),
        );
        if (!left.includes(true)) return;
        if (Date.now() > deadline) throw new Error(`volumes of ${namespace} are still in use`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}
