import { createWorkspacePool } from '@agent-workspace/core';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { execa } from 'execa';
import {
  bestOf,
  type Comparison,
  comparisonOf,
  roundsComparison,
  summarise,
} from './bench-harness.js';

const COLD_START_ROUNDS = 15;
const POOL_ACQUIRES = 20;
const PAUSE_RUNS = 10;

/** Create → first command returns, then close (not timed). */
async function coldStart(image: string): Promise<number> {
  const start = performance.now();
  const workspace = await DockerWorkspace.create({ image, reapOrphans: false });
  try {
    const result = await workspace.executeCommand('true');
    if (result.exitCode !== 0) throw new Error(`first command failed: ${result.stderr}`);
    return performance.now() - start;
  } finally {
    await workspace.close();
  }
}

/** The engine's floor: `docker run --rm <image> true`, a separate process. */
async function dockerRun(image: string): Promise<number> {
  const start = performance.now();
  await execa('docker', ['run', '--rm', '--entrypoint', 'true', image]);
  return performance.now() - start;
}

/**
 * Cold start against `docker run --rm <image> true`, interleaved one pair per round (which goes
 * first alternates): p50 ratio (the target), best-of-N and the median per-round ratio.
 */
async function benchColdStart(image: string): Promise<{ comparison: Comparison; cold: number[] }> {
  const { baseline, candidate } = await bestOf({
    rounds: COLD_START_ROUNDS,
    warmup: 1,
    baseline: () => dockerRun(image),
    candidate: () => coldStart(image),
  });
  const comparison = roundsComparison({
    scenario: 'DockerWorkspace cold start (create → first command returns)',
    baseline: { name: 'docker run --rm <image> true', samples: baseline },
    candidate: { name: 'DockerWorkspace.create → first command', samples: candidate },
    unit: 'ms',
    higherIsBetter: false,
    target: 'p50 ≤ 1.3× docker run',
    notes: `image ${image}`,
  });
  return { comparison, cold: candidate };
}

/** A warm pool's acquire → first command against cold starts measured in the same run. */
async function benchPoolAcquire(image: string, cold: number[]): Promise<Comparison> {
  await using pool = createWorkspacePool({
    kind: 'docker',
    config: { image, reapOrphans: false },
    min: 2,
    max: 4,
    idleTtlMs: 60_000,
    // A first command opens the connections before the workspace is lent (see the README).
    warmUp: async (workspace, { signal }) =>
      void (await workspace.executeCommand('true', { signal })),
  });
  const acquires: number[] = [];
  const firstCommands: number[] = [];
  const untilWarm = async () => {
    while (pool.stats().idle < 1) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  for (let run = 0; run < POOL_ACQUIRES; run += 1) {
    await untilWarm();
    const start = performance.now();
    const lease = await pool.acquire();
    acquires.push(performance.now() - start);
    const result = await lease.workspace.executeCommand('true');
    if (result.exitCode !== 0) throw new Error(`pooled command failed: ${result.stderr}`);
    firstCommands.push(performance.now() - start);
    await lease.release();
  }
  const acquired = summarise('pool.acquire()', acquires);
  return comparisonOf(
    'Warm pool: acquire → first command vs cold start (same run)',
    summarise('DockerWorkspace.create → first command', cold),
    summarise('pool.acquire() → first command', firstCommands),
    {
      target: 'acquire < 100 ms median when warm',
      notes: `acquire alone p50 ${acquired.p50.toFixed(1)} ms, p95 ${acquired.p95.toFixed(1)} ms (n=${acquires.length}; min 2, max 4, warmUp runs true, each lease discarded and refilled)`,
    },
  );
}

async function benchPauseResume(image: string): Promise<Comparison> {
  const pauses: number[] = [];
  const resumes: number[] = [];
  const workspace = await DockerWorkspace.create({ image, reapOrphans: false });
  try {
    for (let run = 0; run < PAUSE_RUNS; run += 1) {
      let start = performance.now();
      await workspace.pause();
      pauses.push(performance.now() - start);
      start = performance.now();
      await workspace.resume();
      resumes.push(performance.now() - start);
    }
  } finally {
    await workspace.close();
  }
  return comparisonOf(
    'DockerWorkspace pause / resume latency',
    summarise('DockerWorkspace.pause()', pauses),
    summarise('DockerWorkspace.resume() (until alive)', resumes),
    { notes: 'baseline row is pause(), candidate row is resume() including the wait until alive' },
  );
}

/** Docker cold start vs the engine's floor, warm pool acquire vs cold start, pause/resume. */
export async function benchDocker(): Promise<Comparison[]> {
  const image = await resolveAgentServerImage();
  const { comparison, cold } = await benchColdStart(image);
  return [comparison, await benchPoolAcquire(image, cold), await benchPauseResume(image)];
}
