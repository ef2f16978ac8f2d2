import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveAgentServerImage } from '@agent-workspace/docker';
import { RemoteAPIWorkspace } from '@agent-workspace/remote-api';
import {
  createRuntimeApiServer,
  DockerRuntimeBackend,
  type RuntimeApiServer,
} from '@agent-workspace/runtime-api';
import { type Comparison, comparisonOf, summarise } from './bench-harness.js';

const RUNS = 8;
const POOL_SIZE = 2;
/** Bound on waiting for the pool to be full again between two runs. */
const REFILL_TIMEOUT_MS = 60_000;

/** A Runtime API server on the local engine, in a namespace of its own, with fresh keys. */
async function startServer(image: string, warmPool: boolean) {
  const runtimeApiKey = randomBytes(32).toString('hex');
  const namespace = `bench-pool-${randomBytes(4).toString('hex')}`;
  const server = await createRuntimeApiServer({
    apiKeys: [runtimeApiKey],
    sessionKeySecret: randomBytes(32).toString('hex'),
    backend: new DockerRuntimeBackend({ namespace }),
    images: [image],
    warmPool: warmPool ? [{ image, count: POOL_SIZE }] : [],
    port: 0,
    logLevel: 'silent',
  });
  return { server, runtimeApiKey };
}

/** Waits (untimed) until every pool of `server` holds its count, ready. */
async function untilPoolFull(server: RuntimeApiServer): Promise<void> {
  const deadline = Date.now() + REFILL_TIMEOUT_MS;
  while (!server.warmPoolStats().every((pool) => pool.warm === pool.target)) {
    if (Date.now() > deadline) {
      throw new Error(`the warm pool did not refill: ${JSON.stringify(server.warmPoolStats())}`);
    }
    await sleep(20);
  }
}

/** Milliseconds from `RemoteAPIWorkspace.create` until a first command returned; then stops it. */
async function timeStart(target: Awaited<ReturnType<typeof startServer>>, image: string) {
  const start = performance.now();
  const workspace = await RemoteAPIWorkspace.create({
    runtimeApiUrl: target.server.url,
    runtimeApiKey: target.runtimeApiKey,
    image,
  });
  try {
    const result = await workspace.executeCommand('true');
    if (result.exitCode !== 0) throw new Error(`first command failed: ${result.stderr}`);
    return performance.now() - start;
  } finally {
    await workspace.close();
  }
}

/**
 * `/start` → first command through `RemoteAPIWorkspace`, served from a warm pool of
 * {@link POOL_SIZE} against a cold start, on the Docker backend, interleaved in the same run
 * (both servers idle and the pool full before every sample, so refills are not timed).
 */
export async function benchRuntimeApiPool(): Promise<Comparison[]> {
  const image = await resolveAgentServerImage();
  const servers: RuntimeApiServer[] = [];
  try {
    const cold = await startServer(image, false);
    servers.push(cold.server);
    const warm = await startServer(image, true);
    servers.push(warm.server);
    const coldSamples: number[] = [];
    const warmSamples: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const order = run % 2 === 0 ? [cold, warm] : [warm, cold];
      for (const target of order) {
        await untilPoolFull(warm.server);
        (target === cold ? coldSamples : warmSamples).push(await timeStart(target, image));
      }
    }
    const [pool] = warm.server.warmPoolStats();
    return [
      comparisonOf(
        'Runtime API warm pool, docker backend (create → first command)',
        summarise('cold start: RemoteAPIWorkspace.create → first command', coldSamples),
        summarise('warm pool: RemoteAPIWorkspace.create → first command', warmSamples),
        {
          notes: `${RUNS} interleaved runs each; pool of ${POOL_SIZE}; claimed ${pool?.claimedTotal}, refill failures ${pool?.failures}; image ${image}`,
        },
      ),
    ];
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}
