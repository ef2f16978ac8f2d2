import Docker from 'dockerode';

/**
 * Whether a Docker engine answers (`docker.ping()`), for gating a Docker test suite with
 * `describe.skipIf(!available)`. Without an engine the suite is skipped with a loud warning;
 * under `CI=true` this throws instead, so CI can never pass by skipping.
 */
export async function requireDockerEngine(suite: string, docker = new Docker()): Promise<boolean> {
  try {
    await docker.ping();
    return true;
  } catch (error) {
    const reason = `no Docker engine answers (${(error as Error).message})`;
    if (process.env.CI === 'true') throw new Error(`${suite}: ${reason}; CI must run it`);
    const bar = '!'.repeat(78);
    console.warn(
      `\n${bar}\n!! SKIPPING ${suite}: ${reason}.\n!! Start dockerd to run it.\n${bar}\n`,
    );
    return false;
  }
}
