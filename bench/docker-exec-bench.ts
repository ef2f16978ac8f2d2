import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import Docker from 'dockerode';
import { execa } from 'execa';
import { type Comparison, compare } from './bench-harness.js';

const ITERATIONS = 40;

/**
 * `true` through the engine's exec API as dockerode (and testcontainers, which uses it) runs it:
 * create the exec, start it attached, read the stream to its end, inspect the exit code.
 */
async function dockerodeExec(container: Docker.Container): Promise<void> {
  const exec = await container.exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  await new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('error', reject);
    stream.resume();
  });
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) throw new Error(`dockerode exec exited with ${ExitCode}`);
}

/**
 * A command in a warm container: `DockerWorkspace.executeCommand('true')` (through the
 * agent-server in the container) against `docker exec <container> true` and against dockerode's
 * exec API on the same container, interleaved.
 */
export async function benchDockerExec(): Promise<Comparison[]> {
  await using workspace = await DockerWorkspace.create({
    image: await resolveAgentServerImage(),
    reapOrphans: false,
  });
  const containerId = workspace.containerId;
  if (containerId === undefined) throw new Error('the Docker workspace has no container');
  const container = new Docker().getContainer(containerId);
  const ours = {
    name: "DockerWorkspace.executeCommand('true')",
    run: async () => {
      const result = await workspace.executeCommand('true');
      if (result.exitCode !== 0) throw new Error(`true exited with ${result.exitCode}`);
    },
  };
  return [
    await compare({
      scenario: 'Docker exec of `true` in a warm container, vs the docker CLI',
      iterations: ITERATIONS,
      baseline: {
        name: 'docker exec <container> true',
        run: () => execa('docker', ['exec', containerId, 'true']),
      },
      candidate: ours,
      target: 'keep well under docker exec (last round 0.11–0.14×)',
    }),
    await compare({
      scenario: 'Docker exec of `true` in a warm container, vs dockerode (as testcontainers execs)',
      iterations: ITERATIONS,
      baseline: {
        name: 'dockerode exec create → start → inspect',
        run: () => dockerodeExec(container),
      },
      candidate: ours,
      target: 'keep well under dockerode exec',
    }),
  ];
}
