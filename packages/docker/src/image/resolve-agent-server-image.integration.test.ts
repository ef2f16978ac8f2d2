import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { requireDockerEngine } from '../testing/require-docker-engine.js';
import { buildAgentServerImage } from './build-agent-server-image.js';
import { buildBaseImage } from './build-base-image.js';
import type { ImageProgressEvent } from './image-progress.js';
import { resolveAgentServerImage } from './resolve-agent-server-image.js';

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
