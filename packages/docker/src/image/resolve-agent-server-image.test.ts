import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { resolveTestImage } from '../test-support/resolve-test-image.js';
import { buildBaseImage } from './build-base-image.js';
import { resolveAgentServerImage } from './resolve-agent-server-image.js';

/** An engine that does not exist: any call to it fails. */
const unreachable = () => new Docker({ socketPath: '/nonexistent/docker.sock' });

describe('image resolution without an engine', () => {
  it('resolveAgentServerImage fails with CONNECTION_ERROR when the engine cannot be reached', async () => {
    await expect(resolveAgentServerImage({ docker: unreachable() })).rejects.toMatchObject({
      code: 'CONNECTION_ERROR',
    });
  });

  it('rejects a bad base image or tag with INVALID_ARGUMENT before calling the engine', async () => {
    const docker = unreachable();
    await expect(resolveAgentServerImage({ docker, baseImage: 'Bad Name' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'baseImage' },
    });
    await expect(buildBaseImage({ docker, tag: 'Upper:Case' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'tag' },
    });
  });

  it('resolveTestImage returns AGENT_WORKSPACE_DOCKER_IMAGE without asking the engine', async () => {
    const saved = process.env.AGENT_WORKSPACE_DOCKER_IMAGE;
    process.env.AGENT_WORKSPACE_DOCKER_IMAGE = 'example/agent-server:preset';
    try {
      expect(await resolveTestImage({ docker: unreachable() })).toBe('example/agent-server:preset');
    } finally {
      if (saved === undefined) delete process.env.AGENT_WORKSPACE_DOCKER_IMAGE;
      else process.env.AGENT_WORKSPACE_DOCKER_IMAGE = saved;
    }
  });
});
