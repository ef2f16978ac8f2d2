import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { requireDockerEngine } from '../testing/require-docker-engine.js';
import { resolveTestImage } from '../testing/resolve-test-image.js';
import { buildAgentServerImage } from './build-agent-server-image.js';
import { buildBaseImage } from './build-base-image.js';
import type { ImageProgressEvent } from './image-progress.js';
import { resolveAgentServerImage } from './resolve-agent-server-image.js';

/** An engine that does not exist: any call to it fails. */
const unreachable = () => new Docker({ socketPath: '/nonexistent/docker.sock' });

describe('image resolution without an engine', () => {
  it('resolveAgentServerImage fails with CONNECTION_ERROR when the engine cannot be reached', async () => {
    await expect(resolveAgentServerImage({ docker: unreachable() })).rejects.toMatchObject({
      code: 'CONNECTION_ERROR',
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

const dockerAvailable = await requireDockerEngine('agent-server image resolution tests');

describe.skipIf(!dockerAvailable)('resolveAgentServerImage', () => {
  it('is the agent-server image on the offline base, reused without building', async () => {
    const docker = new Docker();
    const base = await buildBaseImage({ docker });
    const server = await buildAgentServerImage({ docker, baseImage: base.tag });
    const events: ImageProgressEvent[] = [];
    const image = await resolveAgentServerImage({ docker, onProgress: (e) => events.push(e) });
    expect(image).toBe(server.tag);
    expect(events.map((event) => event.type)).toEqual(['cached', 'done', 'cached', 'done']);
  });
});
