/**
 * DockerWorkspace from plain JSON config (`createWorkspace({ kind: 'docker' })`) on a real
 * engine.
 */
import { createWorkspace } from '@agent-workspace/core';
import { afterAll, expect, it } from 'vitest';
import '../index.js';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

context.describe('createWorkspace({ kind: "docker" })', () => {
  it('builds a started DockerWorkspace with env and forwarded env', async () => {
    process.env.AGENT_WORKSPACE_TEST_FORWARDED = 'from the host';
    const workspace = await createWorkspace({
      kind: 'docker',
      image: context.image,
      env: { EXPLICIT: 'explicit value' },
      forwardEnv: ['AGENT_WORKSPACE_TEST_FORWARDED', 'AGENT_WORKSPACE_TEST_UNSET'],
      labels: context.labels,
    });
    try {
      expect(workspace).toBeInstanceOf(DockerWorkspace);
      expect(workspace.kind).toBe('docker');
      expect(workspace.workingDir).toBe('/workspace');
      const result = await workspace.executeCommand(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion
        'echo "$EXPLICIT|$AGENT_WORKSPACE_TEST_FORWARDED|${AGENT_WORKSPACE_TEST_UNSET-unset}"; pwd',
      );
      expect(result.stdout).toBe('explicit value|from the host|unset\n/workspace\n');
    } finally {
      await workspace.close();
      delete process.env.AGENT_WORKSPACE_TEST_FORWARDED;
    }
  });
});
