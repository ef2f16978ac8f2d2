import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { describe, inject } from 'vitest';

/** Label every container of a test file carries, so its clean-up finds them all. */
export const TEST_RUN_LABEL = 'dev.agent-workspace.test-run';

/** What a Docker workspace test file works with. */
export interface DockerTestContext {
  docker: Docker;
  /** The agent-server image to run. */
  image: string;
  /** Set when the suite must be skipped. */
  skipReason: string | undefined;
  /** Labels to give every workspace (the file's run id). */
  labels: Record<string, string>;
  /** `describe`, or a loudly announced `describe.skip` without an engine. */
  describe: (name: string, factory: () => void) => void;
  /** Ids of this file's containers (optionally with more labels). */
  containerIds(labels?: Record<string, string>): Promise<string[]>;
  /** Force-removes every container of this file; for `afterAll`, even after failures. */
  removeAll(): Promise<void>;
}

/** Sets up a test file against the engine and image checked by the global setup. */
export function dockerTestContext(): DockerTestContext {
  const { image, skipReason } = inject('dockerWorkspaceTest');
  const docker = new Docker();
  const labels = { [TEST_RUN_LABEL]: randomUUID() };
  const containerIds = async (extra: Record<string, string> = {}): Promise<string[]> => {
    const filters = Object.entries({ ...labels, ...extra }).map(
      ([key, value]) => `${key}=${value}`,
    );
    const containers = await docker.listContainers({ all: true, filters: { label: filters } });
    return containers.map((container) => container.Id);
  };
  return {
    docker,
    image,
    skipReason,
    labels,
    describe: (name, factory) => {
      if (skipReason) console.warn(`\n!!! SKIPPING ${name}: ${skipReason}\n`);
      (skipReason ? describe.skip : describe)(name, factory);
    },
    containerIds,
    removeAll: async () => {
      if (skipReason) return;
      const ids = await containerIds();
      await Promise.all(
        ids.map((id) =>
          docker
            .getContainer(id)
            .remove({ force: true, v: true })
            .catch(() => {}),
        ),
      );
    },
  };
}
