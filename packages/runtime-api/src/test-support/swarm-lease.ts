import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from '@agent-workspace/core/internal';
import type Docker from 'dockerode';

/** Where the suites of this machine keep the lease: who holds it, and whether they made the swarm. */
const LEASE_FILE = path.join(tmpdir(), 'agent-workspace-swarm-lease.json');
/** Held while a suite reads or changes the lease (a directory: `mkdir` is atomic). */
const LOCK_DIR = `${LEASE_FILE}.lock`;
/** How long a suite waits for another one's lock before it takes it as abandoned. */
const LOCK_WAIT_MS = 60_000;

interface LeaseState {
  /** True when a suite initialised the swarm, so the last holder leaves it. */
  initialised: boolean;
  /** Process ids of the suites that use it. */
  holders: number[];
}

/**
 * Makes the engine a single-node swarm manager for this process's suites when it is in no swarm,
 * shared with the other suites of this machine that run at the same time (`pnpm test:integration`
 * and `pnpm test:reliability` started side by side): the first initialises the swarm, the last to
 * release leaves it again. An engine already in a swarm that no suite made is left as found.
 * Returns the release.
 */
export async function leaseSwarm(docker: Docker): Promise<() => Promise<void>> {
  await withLock(async () => {
    const state = await readState();
    const { Swarm } = await docker.info();
    if (Swarm?.LocalNodeState === 'inactive') {
      await docker.swarmInit({ ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });
      await writeState({ initialised: true, holders: [process.pid] });
      return;
    }
    if (Swarm?.LocalNodeState !== 'active') {
      throw new Error(`the engine's swarm state is ${Swarm?.LocalNodeState}, not active`);
    }
    if (!Swarm.ControlAvailable) {
      throw new Error('the engine is a swarm worker; the Swarm suites need a manager');
    }
    const initialised = (state?.initialised && state.holders.length > 0) ?? false;
    await writeState({ initialised, holders: [...(state?.holders ?? []), process.pid] });
  });
  return () =>
    withLock(async () => {
      const state = await readState();
      const holders = (state?.holders ?? []).filter((pid) => pid !== process.pid);
      if (holders.length > 0) {
        await writeState({ initialised: state?.initialised ?? false, holders });
        return;
      }
      await rm(LEASE_FILE, { force: true });
      if (state?.initialised) await docker.swarmLeave({ force: true });
    });
}

/** The lease, without holders that have exited; undefined when there is none. */
async function readState(): Promise<LeaseState | undefined> {
  let text: string;
  try {
    text = await readFile(LEASE_FILE, 'utf8');
  } catch {
    return undefined;
  }
  const state = JSON.parse(text) as LeaseState;
  return { initialised: state.initialised, holders: state.holders.filter(isProcessAlive) };
}

function writeState(state: LeaseState): Promise<void> {
  return writeFile(LEASE_FILE, JSON.stringify(state));
}

/** Runs `body` holding the lock; a lock older than {@link LOCK_WAIT_MS} is taken as abandoned. */
async function withLock<T>(body: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(LOCK_DIR);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) {
        await rm(LOCK_DIR, { recursive: true, force: true });
        continue;
      }
      await sleep(100);
    }
  }
  try {
    return await body();
  } finally {
    await rm(LOCK_DIR, { recursive: true, force: true });
  }
}
