import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace } from '@agent-workspace/core';
import { describeWorkspaceContract } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe } from 'vitest';

const API_KEY = 'contract-session-key';

/**
 * Runs the workspace contract against a real agent-server on loopback: once with our
 * streaming-exec extension, once with `extensions: false` so the client must fall back to the
 * plain OpenHands protocol (start + poll). Each workspace gets its own working directory.
 */
for (const [name, extensions] of [
  ['RemoteWorkspace (streaming exec)', true],
  ['RemoteWorkspace (OpenHands polling)', false],
] as const) {
  describe(name, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ sessionApiKeys: [API_KEY], extensions });
    });
    afterAll(async () => {
      await server.close();
    });

    describeWorkspaceContract(name, async () => {
      const workingDir = await mkdtemp(path.join(server.dir, 'ws-'));
      const workspace = new RemoteWorkspace({ host: server.url, workingDir, apiKey: API_KEY });
      const info = await workspace.serverInfo();
      // Make sure each suite exercises the mode it names.
      if (info.capabilities.length > 0 !== extensions) {
        throw new Error(`${name}: server capabilities ${JSON.stringify(info.capabilities)}`);
      }
      return workspace;
    });
  });
}
