import { randomBytes } from 'node:crypto';
import {
  DockerWorkspace,
  removeDockerSnapshot,
  resolveAgentServerImage,
} from '@agent-workspace/docker';
import { execa } from 'execa';
import { bestOf, type Comparison, roundsComparison } from './bench-harness.js';

const ROUNDS = 7;
/** Written into the workspace before the rounds: a git repository with a few MB of files. */
const PREPARE = [
  'mkdir -p repo && cd repo && git init -q',
  'for i in $(seq 1 200); do head -c 16384 /dev/urandom > file-$i.bin; done',
  'git add . && git -c user.name=bench -c user.email=bench@example.test commit -qm prepared',
].join(' && ');

/** A CLI image name of this run. */
function cliReference(): string {
  return `agent-workspace-bench/cli-snapshot:${randomBytes(6).toString('hex')}`;
}

/** `docker commit --pause` of `containerId` through the CLI; returns the image name. */
async function cliCommit(containerId: string): Promise<string> {
  const reference = cliReference();
  await execa('docker', ['commit', '--pause=true', containerId, reference]);
  return reference;
}

/** Polls `GET /health` until the agent-server answers 200 (every 10 ms). */
async function untilHealthy(url: string): Promise<void> {
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The CLI floor of a fork: `docker commit`, `docker run -d` of the image (loopback port, init,
 * a session key) and `/health` answering; returns the container and image for clean-up.
 */
async function cliFork(containerId: string): Promise<{ container: string; image: string }> {
  const image = await cliCommit(containerId);
  const { stdout } = await execa('docker', [
    'run',
    '-d',
    '--init',
    '-p',
    '127.0.0.1::8000',
    '-e',
    `SESSION_API_KEY=${randomBytes(32).toString('hex')}`,
    image,
  ]);
  const container = stdout.trim();
  const { stdout: port } = await execa('docker', ['port', container, '8000/tcp']);
  await untilHealthy(`http://${port.trim().split('\n')[0]}`);
  return { container, image };
}

/** Times `operation`, then runs `cleanUp` on its result (not timed). */
async function timed<T>(
  operation: () => Promise<T>,
  cleanUp: (result: T) => Promise<unknown>,
): Promise<number> {
  const start = performance.now();
  const result = await operation();
  const elapsed = performance.now() - start;
  await cleanUp(result);
  return elapsed;
}

/**
 * `snapshot()` against `docker commit --pause` of the same container, and `fork()` (until the
 * fork's agent-server answers) against `docker commit` + `docker run` + `/health` polling;
 * interleaved one pair a round (which goes first alternates), best of {@link ROUNDS}.
 */
export async function benchDockerSnapshot(): Promise<Comparison[]> {
  const image = await resolveAgentServerImage();
  const workspace = await DockerWorkspace.create({ image, reapOrphans: false });
  try {
    const prepared = await workspace.executeCommand(PREPARE);
    if (prepared.exitCode !== 0) throw new Error(`preparing failed: ${prepared.stderr}`);
    const containerId = workspace.containerId!;
    const removeImage = (reference: string) => execa('docker', ['rmi', reference]);

    const snapshots = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: () => timed(() => cliCommit(containerId), removeImage),
      candidate: () =>
        timed(
          () => workspace.snapshot(),
          (snapshot) => removeDockerSnapshot(snapshot.id),
        ),
    });
    const forks = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: () =>
        timed(
          () => cliFork(containerId),
          async ({ container, image: forked }) => {
            await execa('docker', ['rm', '-f', '-v', container]);
            await removeImage(forked);
          },
        ),
      candidate: () =>
        timed(
          () => workspace.fork(),
          async (fork) => {
            await fork.close();
            await removeDockerSnapshot(fork.forkedFrom!.id);
          },
        ),
    });
    const notes = `same container (a git repository of 200 × 16 KiB files), image ${image}`;
    return [
      roundsComparison({
        scenario: 'DockerWorkspace.snapshot() vs docker commit --pause (CLI)',
        baseline: { name: 'docker commit --pause <container>', samples: snapshots.baseline },
        candidate: { name: 'workspace.snapshot()', samples: snapshots.candidate },
        unit: 'ms',
        higherIsBetter: false,
        notes,
      }),
      roundsComparison({
        scenario: 'DockerWorkspace.fork() vs docker commit + docker run + /health (CLI)',
        baseline: { name: 'docker commit + run -d + /health answers', samples: forks.baseline },
        candidate: { name: 'workspace.fork() (agent-server answering)', samples: forks.candidate },
        unit: 'ms',
        higherIsBetter: false,
        notes,
      }),
    ];
  } finally {
    await workspace.close();
  }
}
