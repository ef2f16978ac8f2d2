import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { requireDockerEngine } from '@agent-workspace/docker/testing';
import { describe, expect, it } from 'vitest';
import { expectDemoOutcome } from './expect-demo-outcome.js';
import { runDemo } from './run-demo.js';
import { OpenAIDouble } from './test-support/openai-double.js';
import { type DemoRun, demo, expectOneLineFailure } from './test-support/run-demo-cli.js';

const dockerAvailable = await requireDockerEngine('demo on a Docker workspace');

/** A model double that refuses the key, listening on `listenHost` (default loopback). */
function rejectingModel(listenHost?: string): Promise<OpenAIDouble> {
  return OpenAIDouble.start([{ status: 401, message: 'Invalid key.' }], { listenHost });
}

/** The demo CLI on a Docker workspace, calling the model at `double`'s URL. */
function demoOnDocker(double: OpenAIDouble): Promise<DemoRun> {
  return demo('--workspace', 'docker', '--model', 'openai/d', '--base-url', double.baseUrl);
}

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

describe.skipIf(!dockerAvailable)('the demo CLI, a loopback model URL and Docker', () => {
  it('calls a model listening on all interfaces through host.docker.internal', async () => {
    await using double = await rejectingModel('0.0.0.0');
    const gatewayUrl = double.baseUrl.replace('127.0.0.1', 'host.docker.internal');
    const run = await demoOnDocker(double);
    expect(run.stdout).toContain(`so it calls ${gatewayUrl} (the host's gateway)`);
    expectOneLineFailure(
      run,
      1,
      new RegExp(`^demo: model request failed: 401 Unauthorized from ${gatewayUrl}: `),
    );
    expect(double.requests).toBe(1);
  }, 300_000);

  it('refuses in one line when the model listens on loopback only', async () => {
    await using double = await rejectingModel();
    const run = await demoOnDocker(double);
    expectOneLineFailure(
      run,
      1,
      /^demo: the container cannot reach http:\/\/host\.docker\.internal:\d+\/v1 .*listen on 0\.0\.0\.0/,
    );
    expect(double.requests).toBe(0);
  }, 300_000);
});
