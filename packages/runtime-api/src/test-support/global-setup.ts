import { resolveAgentServerImage } from '@agent-workspace/docker';
import Docker from 'dockerode';
import type { TestProject } from 'vitest/node';
import { leaseSwarm } from './swarm-lease.js';

/** What the Runtime API suites get from {@link setup} through `inject('remoteApiTest')`. */
export interface RemoteApiTestSetup {
  /** The agent-server image sessions run. */
  image: string;
  /** Set when the suites must be skipped (never under `CI=true`, where setup fails instead). */
  skipReason?: string | undefined;
}

declare module 'vitest' {
  export interface ProvidedContext {
    remoteApiTest: RemoteApiTestSetup;
  }
}

/**
 * Vitest global setup: checks the Docker engine, resolves the agent-server image once for every
 * suite (`AGENT_WORKSPACE_DOCKER_IMAGE`, else built when its content-hash tag is missing), and
 * makes the engine a single-node swarm manager when it is in no swarm, leaving the swarm again
 * at teardown (an engine already in a swarm is left as found; suites running side by side share
 * one swarm through {@link leaseSwarm}). Without a usable engine the suites are skipped loudly;
 * under `CI=true` the run fails instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const docker = new Docker();
  let image = '';
  let skipReason: string | undefined;
  let releaseSwarm: (() => Promise<void>) | undefined;
  try {
    await docker.ping();
    image =
      process.env.AGENT_WORKSPACE_DOCKER_IMAGE ||
      (await resolveAgentServerImage({
        docker,
        onProgress: (event) => {
          if (event.type !== 'log')
            console.error(`[agent-server image] ${event.type}: ${event.message}`);
        },
      }));
    releaseSwarm = await leaseSwarm(docker);
  } catch (error) {
    skipReason = `no usable Docker engine, swarm or agent-server image (${(error as Error).message})`;
    if (process.env.CI === 'true') {
      throw new Error(
        `the Runtime API suites need an engine, a swarm and the image under CI=true: ${skipReason}`,
      );
    }
    const bar = '!'.repeat(78);
    console.warn(`\n${bar}\n!! SKIPPING the Runtime API backend suites: ${skipReason}\n${bar}\n`);
  }
  project.provide('remoteApiTest', { image, skipReason });
  return async () => {
    await releaseSwarm?.();
  };
}
