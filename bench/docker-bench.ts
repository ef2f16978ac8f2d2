import { createWorkspacePool } from '@agent-workspace/core';
import {
  type DockerConnection,
  DockerWorkspace,
  resolveAgentServerImage,
} from '@agent-workspace/docker';
import { AGENT_SERVER_LISTENING_EVENT } from '@agent-workspace/protocol';
import Docker from 'dockerode';
import { execa } from 'execa';
import { GenericContainer } from 'testcontainers';
import { bareNodeServerStart } from './bare-node-server-start.js';
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

/** Where one cold start spent its time, in milliseconds. */
interface ColdStartPhases {
  /** create → first command returns. */
  total: number;
  /** `POST /containers/create`. */
  create: number;
  /** `POST /containers/{id}/start`. */
  start: number;
  /** The container's process start (`State.StartedAt`) → the server's listening line (its `time`). */
  listening: number;
  /** The listening line → `create()` resolved (the line seen, `/health` answered). */
  ready: number;
  /** `create()` resolved → the first command returned. */
  firstCommand: number;
}

/** A dockerode client that times the workspace's create and start calls. */
class TimedDocker extends Docker {
  create = 0;
  start = 0;

  override async createContainer(
    options: Docker.ContainerCreateOptions,
  ): Promise<Docker.Container> {
    const begin = performance.now();
    const container = await super.createContainer(options);
    this.create = performance.now() - begin;
    const start = container.start.bind(container);
    container.start = (async (startOptions?: object) => {
      const began = performance.now();
      const result = await start(startOptions as never);
      this.start = performance.now() - began;
      return result;
    }) as typeof container.start;
    return container;
  }
}

/** The pino `time` of the agent-server's listening line in the container's output. */
async function listeningLineTime(container: Docker.Container): Promise<number> {
  const output = (await container.logs({ stdout: true, stderr: false })).toString('latin1');
  const line = output.split('\n').find((entry) => entry.includes(AGENT_SERVER_LISTENING_EVENT));
  const time = Number(/"time":(\d+)/.exec(line ?? '')?.[1]);
  if (!Number.isFinite(time)) throw new Error('no listening line in the container output');
  return time;
}

/** Create → first command returns, then close (not timed), with the time of each phase. */
async function coldStart(image: string, connect: DockerConnection): Promise<ColdStartPhases> {
  const docker = new TimedDocker();
  const begin = performance.now();
  const workspace = await DockerWorkspace.create({ image, reapOrphans: false, connect, docker });
  const readyAt = Date.now();
  const ready = performance.now();
  try {
    const result = await workspace.executeCommand('true');
    if (result.exitCode !== 0) throw new Error(`first command failed: ${result.stderr}`);
    const done = performance.now();
    if (connect !== 'auto' && workspace.connection !== connect)
      throw new Error(`connected by ${workspace.connection}`);
    const container = docker.getContainer(workspace.containerId!);
    const startedAt = Date.parse((await container.inspect()).State.StartedAt);
    const listenedAt = await listeningLineTime(container);
    return {
      total: done - begin,
      create: docker.create,
      start: docker.start,
      listening: listenedAt - startedAt,
      ready: readyAt - listenedAt,
      firstCommand: done - ready,
    };
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
 * testcontainers' way to the same point: `GenericContainer.start()` (create, start) of the image
 * kept alive by `sleep infinity`, then `exec(['true'])`; the stop is not timed.
 */
async function testcontainersStart(image: string): Promise<number> {
  const start = performance.now();
  const container = await new GenericContainer(image).withEntrypoint(['sleep', 'infinity']).start();
  try {
    const result = await container.exec(['true']);
    if (result.exitCode !== 0) throw new Error(`testcontainers exec failed: ${result.output}`);
    return performance.now() - start;
  } finally {
    await container.stop({ timeout: 0 });
  }
}

/** Median of each phase over the rounds. */
function phaseMedians(samples: ColdStartPhases[]): string {
  const median = (key: keyof ColdStartPhases) =>
    summarise(
      key,
      samples.map((s) => s[key]),
    ).p50;
  const keys: (keyof ColdStartPhases)[] = ['create', 'start', 'listening', 'ready', 'firstCommand'];
  return keys.map((key) => `${key} ${median(key).toFixed(0)}`).join(', ');
}

/**
 * Cold start against `docker run --rm <image> true` and against the same cold start reaching the
 * server through a published port, interleaved one of each per round (the order rotates): p50
 * ratios (the targets), best-of-N and the median per-round ratio, and each phase's median.
 */
async function benchColdStart(
  image: string,
): Promise<{ comparisons: Comparison[]; cold: number[] }> {
  // A round: docker run, a published-port start and a bridge start, in rotating order.
  const { baseline, candidate } = await bestOf<{ phases: ColdStartPhases; dockerRun?: number }>({
    rounds: COLD_START_ROUNDS,
    warmup: 1,
    baseline: async (round) => {
      const first = round % 4 < 2;
      const before = first ? await dockerRun(image) : undefined;
      const phases = await coldStart(image, 'published-port');
      return { phases, dockerRun: before ?? (await dockerRun(image)) };
    },
    candidate: async () => ({ phases: await coldStart(image, 'bridge') }),
  });
  const bridge = candidate.map((sample) => sample.phases);
  const published = baseline.map((sample) => sample.phases);
  const totals = (samples: ColdStartPhases[]) => samples.map((sample) => sample.total);
  const cold = totals(bridge);
  const phases = `phase medians, ms — bridge: ${phaseMedians(bridge)}; published port: ${phaseMedians(published)}`;
  const versusDockerRun = roundsComparison({
    scenario: 'DockerWorkspace cold start (create → first command returns)',
    baseline: {
      name: 'docker run --rm <image> true',
      samples: baseline.map((sample) => sample.dockerRun!),
    },
    candidate: { name: 'DockerWorkspace.create → first command', samples: cold },
    unit: 'ms',
    higherIsBetter: false,
    target: 'p50 ≤ 1.2× docker run',
    notes: `image ${image}; connect 'auto' (here the bridge); ${phases}`,
  });
  const versusPublished = roundsComparison({
    scenario:
      "DockerWorkspace cold start: bridge address vs published port (connect 'published-port')",
    baseline: { name: "connect: 'published-port'", samples: totals(published) },
    candidate: { name: "connect: 'bridge' ('auto' here)", samples: cold },
    unit: 'ms',
    higherIsBetter: false,
    notes: phases,
  });
  return { comparisons: [versusDockerRun, versusPublished], cold };
}

/**
 * Container start → first command against testcontainers (`GenericContainer.start()` →
 * `exec(['true'])`, Ryuk disabled: no image can be pulled), interleaved one of each per round,
 * and the floor of a Node server against the same baseline (see {@link bareNodeServerStart}):
 * what no server written in Node can go under, however little it loads.
 */
async function benchTestcontainers(image: string): Promise<Comparison[]> {
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  const docker = new Docker();
  const { baseline, candidate } = await bestOf<{
    testcontainers?: number;
    ours?: number;
    floor?: number;
  }>({
    rounds: COLD_START_ROUNDS,
    warmup: 1,
    baseline: async () => ({ testcontainers: await testcontainersStart(image) }),
    // Ours and the floor in turn go first.
    candidate: async (round) => {
      const floorFirst = round % 2 === 1 ? await bareNodeServerStart(docker, image) : undefined;
      const ours = (await coldStart(image, 'auto')).total;
      return { ours, floor: floorFirst ?? (await bareNodeServerStart(docker, image)) };
    },
  });
  const testcontainers = {
    name: 'GenericContainer.start() → exec true',
    samples: baseline.map((sample) => sample.testcontainers!),
  };
  return [
    roundsComparison({
      scenario: 'Container start → first command vs testcontainers',
      baseline: testcontainers,
      candidate: {
        name: 'DockerWorkspace.create → first command',
        samples: candidate.map((sample) => sample.ours!),
      },
      unit: 'ms',
      higherIsBetter: false,
      target: 'p50 ≤ 1.0× testcontainers',
      notes: `testcontainers runs the image with entrypoint sleep infinity and execs true; ours starts the agent-server and runs true through it (connect 'auto')`,
    }),
    roundsComparison({
      scenario: 'Container start → first answer of a bare node:http server vs testcontainers',
      baseline: testcontainers,
      candidate: {
        name: 'bare node:http server in the image → first GET',
        samples: candidate.map((sample) => sample.floor!),
      },
      unit: 'ms',
      higherIsBetter: false,
      notes:
        'the floor of any server in Node: create, start (init process as ours), a node -e server that loads nothing, GET its bridge address until it answers',
    }),
  ];
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

/**
 * Docker cold start vs the engine's floor and vs a published port, container start → first
 * command vs testcontainers, warm pool acquire vs cold start, pause/resume.
 */
export async function benchDocker(): Promise<Comparison[]> {
  const image = await resolveAgentServerImage();
  const { comparisons, cold } = await benchColdStart(image);
  return [
    ...comparisons,
    ...(await benchTestcontainers(image)),
    await benchPoolAcquire(image, cold),
    await benchPauseResume(image),
  ];
}
