import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { requireDockerEngine } from '@agent-workspace/docker/testing';
import { describe, it } from 'vitest';
import { expectDemoOutcome } from './expect-demo-outcome.js';
import { runDemo } from './run-demo.js';

const dockerAvailable = await requireDockerEngine('demo on a Docker workspace');

describe.skipIf(!dockerAvailable)('the demo, scripted, on a Docker workspace', () => {
  it('leaves the same files and answer as on a local workspace', async () => {
    await using workspace = await DockerWorkspace.create({
      image: await resolveAgentServerImage(),
    });
    const lines: string[] = [];
    expectDemoOutcome(
      await runDemo({ workspace, print: (line) => lines.push(line) }),
      lines,
      'remote',
    );
  }, 300_000);
});
