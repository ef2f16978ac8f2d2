/**
 * A warm pool of DockerWorkspaces on a real engine: a lent workspace runs commands, holders never
 * see each other's files or processes, `max` holds under twice as many parallel acquires, a
 * container killed behind the pool's back is not lent, and `close()` leaves no container.
 */
import { randomUUID } from 'node:crypto';
import {
  createWorkspacePool,
  type PooledWorkspaceLease,
  type WorkspacePool,
  type WorkspacePoolOptions,
} from '@agent-workspace/core';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { DOCKER_LABELS } from './docker-labels.js';
import { DockerWorkspace } from './docker-workspace.js';
import { registerDockerWorkspaceType } from './register-docker-workspace-type.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
const POOL_LABEL = 'dev.agent-workspace.test-pool';
const pools: WorkspacePool<DockerWorkspace>[] = [];
afterEach(async () => {
  await Promise.allSettled(pools.splice(0).map((pool) => pool.close()));
});
afterAll(() => context.removeAll());

/** A pool of `docker` workspaces built from the registry, its containers labelled with `id`. */
function dockerPool(
  options: Omit<WorkspacePoolOptions<DockerWorkspace>, 'kind' | 'config' | 'create'> = {},
) {
  registerDockerWorkspaceType();
  const id = randomUUID();
  const pool = createWorkspacePool<DockerWorkspace>({
    kind: 'docker',
    config: { image: context.image, labels: { ...context.labels, [POOL_LABEL]: id } },
    ...options,
  });
  pools.push(pool);
  return { pool, id };
}

/** Containers (running or not) that agent-workspace made for this process and pool `id`. */
async function poolContainers(id: string): Promise<string[]> {
  const containers = await context.docker.listContainers({
    all: true,
    filters: {
      label: [
        `${DOCKER_LABELS.managed}=true`,
        `${DOCKER_LABELS.ownerPid}=${process.pid}`,
        `${POOL_LABEL}=${id}`,
      ],
    },
  });
  return containers.map((container) => container.Id);
}

/** Runs `command` in the lease's workspace; returns trimmed stdout, failing on a non-zero exit. */
async function run(lease: PooledWorkspaceLease<DockerWorkspace>, command: string) {
  const result = await lease.workspace.executeCommand(command);
  expect(result.exitCode, `${command}: ${result.stderr}`).toBe(0);
  return result.stdout.trim();
}

/**
 * Counts processes whose command line has `marker`, without relying on ps being installed. The
 * pattern `[p]ool-...` matches the marker but not itself, so the counting shell is not counted.
 */
const countMarked = (marker: string) =>
  `n=0; for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < "$f" 2>/dev/null | grep -q -- "[${marker[0]}]${marker.slice(1)}" && n=$((n+1)); done; echo $n`;

context.describe('a warm pool of DockerWorkspaces', () => {
  it('lends a started, warmed-up docker workspace from the registry that runs a command', async () => {
    const { pool, id } = dockerPool({
      min: 1,
      max: 2,
      warmUp: async (workspace, { signal }) => {
        await workspace.executeCommand('echo warmed > /tmp/warm-up', { signal });
      },
    });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1), { timeout: 60_000, interval: 50 });
    const lease = await pool.acquire();
    expect(lease.workspace).toBeInstanceOf(DockerWorkspace);
    expect(await run(lease, 'echo hi')).toBe('hi');
    expect(await run(lease, 'cat /tmp/warm-up')).toBe('warmed');
    expect(await poolContainers(id)).toContain(lease.workspace.containerId);
    await lease.release();
    expect(pool.stats()).toMatchObject({ acquired: 1, discarded: 1, failedStarts: 0 });
  });

  it('never shows one holder’s files or processes to the next', async () => {
    const { pool, id } = dockerPool({ min: 1, max: 1 });
    const marker = `pool-marker-${randomUUID().slice(0, 8)}`;
    const first = await pool.acquire();
    const firstContainer = first.workspace.containerId!;
    await run(first, 'echo secret > secret.txt && echo secret > /tmp/secret.txt');
    await run(first, `setsid nohup sh -c 'sleep 1000; : ${marker}' > /dev/null 2>&1 &`);
    await vi.waitFor(async () => expect(await run(first, countMarked(marker))).toBe('1'));
    await first.release();
    expect(await poolContainers(id)).not.toContain(firstContainer);

    await using second = await pool.acquire();
    expect(second.workspace.containerId).not.toBe(firstContainer);
    expect(await run(second, 'ls -A')).toBe('');
    expect((await second.workspace.executeCommand('cat /tmp/secret.txt')).exitCode).not.toBe(0);
    expect(await run(second, countMarked(marker))).toBe('0');
    // The first holder's stale reference reaches nothing.
    await expect(first.workspace.executeCommand('true')).rejects.toMatchObject({
      code: 'WORKSPACE_CLOSED',
    });
  });

  it('with a reset, lends the same container again cleaned, and removes one whose reset fails', async () => {
    let failReset = false;
    const { pool, id } = dockerPool({
      max: 1,
      reset: async (workspace, { signal }) => {
        if (failReset) throw new Error('reset refused');
        const result = await workspace.executeCommand('find . -mindepth 1 -delete', { signal });
        if (result.exitCode !== 0) throw new Error(result.stderr);
      },
    });
    const first = await pool.acquire();
    const container = first.workspace.containerId!;
    await run(first, 'echo mine > mine.txt');
    await first.release();
    expect(pool.stats()).toMatchObject({ idle: 1, returned: 1, discarded: 0 });

    const second = await pool.acquire();
    expect(second.workspace.containerId).toBe(container);
    expect(await run(second, 'ls -A')).toBe('');
    failReset = true;
    await second.release();
    expect(pool.stats()).toMatchObject({ idle: 0, discarded: 1 });
    expect(pool.stats().lastError).toMatchObject({ during: 'reset' });
    expect(await poolContainers(id)).not.toContain(container);
  });

  it('holds at most max containers under twice as many parallel acquires', async () => {
    const max = 3;
    const { pool, id } = dockerPool({ max });
    let peak = 0;
    const sample = async () => {
      const { idle, inUse, starting, resetting, closing } = pool.stats();
      peak = Math.max(peak, idle + inUse + starting + resetting + closing);
      peak = Math.max(peak, (await poolContainers(id)).length);
    };
    const sampler = setInterval(() => void sample(), 25);
    const containers = new Set<string>();
    try {
      await Promise.all(
        Array.from({ length: 2 * max }, async (_, index) => {
          await using lease = await pool.acquire();
          containers.add(lease.workspace.containerId!);
          expect(await run(lease, `echo ${index}`)).toBe(String(index));
          await sample();
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(max);
    expect(containers.size).toBe(2 * max);
    const stats = pool.stats();
    expect(stats, JSON.stringify(stats)).toMatchObject({ acquired: 2 * max, waiting: 0 });
    // Every container started was lent once or found dead (a loaded engine may fail a check):
    // none was started for nobody.
    expect(stats.created, JSON.stringify(stats)).toBe(stats.acquired + stats.dead + stats.idle);
  });

  it('does not lend a container killed behind its back, and replaces it', async () => {
    const { pool, id } = dockerPool({ min: 1, max: 2 });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1), { timeout: 60_000, interval: 50 });
    const [warm] = await poolContainers(id);
    await context.docker.getContainer(warm!).kill();

    await using lease = await pool.acquire();
    expect(lease.workspace.containerId).not.toBe(warm);
    expect(await run(lease, 'echo alive')).toBe('alive');
    expect(pool.stats()).toMatchObject({ dead: 1 });
    await vi.waitFor(async () => expect(await poolContainers(id)).not.toContain(warm));
  });

  it('leaves no container behind when closed with idle, leased and starting members', async () => {
    const { pool, id } = dockerPool({ min: 2, max: 4, drainTimeoutMs: 1_000 });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(2), { timeout: 60_000, interval: 50 });
    const lease = await pool.acquire();
    // The acquire started a refill: one member is starting, one idle, one leased.
    await vi.waitFor(() => expect(pool.stats().starting).toBe(1));
    expect((await poolContainers(id)).length).toBeGreaterThanOrEqual(2);
    await pool.close();
    expect(await poolContainers(id)).toEqual([]);
    expect(lease.released).toBe(true);
    expect(pool.stats()).toMatchObject({ idle: 0, inUse: 0, starting: 0, closing: 0 });
  });

  it('aborts starts in flight of a typed create factory on close', async () => {
    const id = randomUUID();
    const labels = { ...context.labels, [POOL_LABEL]: id };
    const pool = createWorkspacePool({
      create: ({ signal }) => DockerWorkspace.create({ image: context.image, labels }, { signal }),
      min: 3,
      max: 3,
      refillConcurrency: 3,
    });
    pools.push(pool);
    expect(pool.stats().starting).toBe(3);
    // Close once the engine has made containers, so the starts are cut off half-way.
    await vi.waitFor(async () => expect((await poolContainers(id)).length).toBeGreaterThan(0), {
      timeout: 30_000,
      interval: 10,
    });
    await pool.close();
    expect(await poolContainers(id)).toEqual([]);
    expect(pool.stats().failedStarts).toBe(0);
  });
});
