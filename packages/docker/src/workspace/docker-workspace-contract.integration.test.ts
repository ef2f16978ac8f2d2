import { describeWorkspaceContract } from '@agent-workspace/core/testing';
import { afterAll } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import { removeDockerSnapshot } from './remove-docker-snapshot.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

/** The workspace contract on real containers of the agent-server image. */
describeWorkspaceContract(
  'DockerWorkspace',
  async () => {
    const startedAt = performance.now();
    const workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
    });
    await workspace.executeCommand('true');
    console.info(
      `[DockerWorkspace] cold start (create → first command): ${Math.round(performance.now() - startedAt)} ms`,
    );
    return workspace;
  },
  {
    skipReason: context.skipReason,
    // A fork keeps the snapshot it started from once closed.
    disposeFork: async (fork) => {
      if (fork instanceof DockerWorkspace && fork.forkedFrom) {
        await removeDockerSnapshot(fork.forkedFrom.id);
      }
    },
  },
);
