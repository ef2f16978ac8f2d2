import { describeWorkspaceContract } from '@agent-workspace/core/testing';
import { RemoteAPIWorkspace, RuntimeApiClient } from '@agent-workspace/remote-api';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';

const context = remoteApiTestContext();
const runtimeApi = runtimeApiServerFixture(context, {
  backend: new DockerRuntimeBackend({ namespace: context.namespace }),
});

/** The workspace contract on sessions of the real Runtime API server on the Docker backend. */
describeWorkspaceContract(
  'RemoteAPIWorkspace (docker backend)',
  async () => {
    const startedAt = performance.now();
    const workspace = await RemoteAPIWorkspace.create({
      runtimeApiUrl: runtimeApi.server.url,
      runtimeApiKey: runtimeApi.apiKey,
      image: context.image,
    });
    await workspace.executeCommand('true');
    console.info(
      `[RemoteAPIWorkspace] cold start (create → first command): ${Math.round(performance.now() - startedAt)} ms`,
    );
    return workspace;
  },
  {
    skipReason: context.skipReason,
    // A fork keeps the snapshot it started from once closed.
    disposeFork: async (fork) => {
      if (!(fork instanceof RemoteAPIWorkspace) || !fork.forkedFrom) return;
      const runtime = new RuntimeApiClient({
        url: runtimeApi.server.url,
        apiKey: runtimeApi.apiKey,
      });
      try {
        await runtime.removeSnapshot(fork.forkedFrom.snapshotId);
      } finally {
        await runtime.close();
      }
    },
  },
);
