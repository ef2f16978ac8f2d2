import Docker from 'dockerode';
import type { TestProject } from 'vitest/node';
import { resolveTestImage } from '../../test-support/resolve-test-image.js';

/** What the Docker workspace suites get from {@link setup} through `inject('dockerWorkspaceTest')`. */
export interface DockerWorkspaceTestSetup {
  /** The agent-server image to run. */
  image: string;
  /** Set when the suites must be skipped (never under `CI=true`, where setup fails instead). */
  skipReason?: string | undefined;
}

declare module 'vitest' {
  export interface ProvidedContext {
    dockerWorkspaceTest: DockerWorkspaceTestSetup;
  }
}

/**
 * Vitest global setup: checks the Docker engine and resolves the test image once for every
 * suite (test files run in parallel and must not build it concurrently). Without an engine or
 * image the suites are skipped loudly; under `CI=true` the run fails instead.
 */
export default async function setup(project: TestProject): Promise<void> {
  const docker = new Docker();
  let image = '';
  let skipReason: string | undefined;
  try {
    await docker.ping();
    image = await resolveTestImage({
      docker,
      onProgress: (event) => {
        if (event.type !== 'log')
          console.error(`[docker test image] ${event.type}: ${event.message}`);
      },
    });
  } catch (error) {
    skipReason = `no usable Docker engine or test image (${(error as Error).message})`;
    if (process.env.CI === 'true') {
      throw new Error(`the Docker suites need an engine and image under CI=true: ${skipReason}`);
    }
    const bar = '!'.repeat(78);
    console.warn(`\n${bar}\n!! SKIPPING the DockerWorkspace suites: ${skipReason}\n${bar}\n`);
  }
  project.provide('dockerWorkspaceTest', { image, skipReason });
}
