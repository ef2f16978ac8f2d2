/**
 * `deferInit: true` on a real engine: the container's agent-server starts dormant, start-up and
 * `alive()` work against it, commands fail with a clear error until `initialize()`, and a warm
 * pool configures each member for its claimer (`acquire({ initialize })`) and closes it after.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createWorkspacePool, type WorkspacePool } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
const POOL_LABEL = 'dev.agent-workspace.test-deferred-pool';
const pools: WorkspacePool<DockerWorkspace>[] = [];
afterEach(async () => {
  await Promise.allSettled(pools.splice(0).map((pool) => pool.close()));
});
afterAll(() => context.removeAll());

context.describe('DockerWorkspace with deferInit', () => {
  it('starts dormant in a warm pool, refuses commands before init and serves the claimer after', async () => {
    const id = randomUUID();
    const pool = createWorkspacePool<DockerWorkspace>({
      create: ({ signal }) =>
        DockerWorkspace.create(
          {
            image: context.image,
            deferInit: true,
            labels: { ...context.labels, [POOL_LABEL]: id },
          },
          { signal },
        ),
      min: 1,
      max: 2,
    });
    pools.push(pool);
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1), { timeout: 60_000, interval: 50 });

    // Lent without initialize: alive (the pool's health check passed) but dormant.
    const unclaimed = await pool.acquire();
    expect(await unclaimed.workspace.alive()).toBe(true);
    expect(await unclaimed.workspace.initState()).toBe('dormant');
    const refused = await expectRejection(
      unclaimed.workspace.executeCommand('echo hi'),
      'SERVER_ERROR',
    );
    expect(refused.message).toContain("deferred-init state 'dormant'");
    const inspected = await context.docker.getContainer(unclaimed.workspace.containerId!).inspect();
    expect(inspected.Config.Env).toContain('OH_DEFERRED_INIT=true');
    // Its key after initialize() is the claimer's, which may open other containers: 'auto'
    // published a port rather than use the address Docker gives the next container.
    expect(unclaimed.workspace.connection).toBe('published-port');
    await unclaimed.release();

    const userKey = randomBytes(24).toString('hex');
    const lease = await pool.acquire({
      initialize: (workspace, { signal }) =>
        workspace.initialize({ sessionApiKeys: [userKey], signal }),
    });
    const result = await lease.workspace.executeCommand('echo "claimed by $(id -un)"');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^claimed by /);
    expect((await lease.workspace.agentServerEndpoint()).apiKey).toBe(userKey);
    expect(await lease.workspace.initState()).toBe('ready');
    const containerId = lease.workspace.containerId!;
    expect(pool.stats()).toMatchObject({ initialized: 1, inUse: 1 });

    await lease.release();
    // Closed, not reused: its container is gone.
    const left = await context.docker.listContainers({
      all: true,
      filters: { id: [containerId] },
    });
    expect(left).toEqual([]);
    expect(pool.stats()).toMatchObject({ returned: 0, discarded: 2 });
  });

  it('leaves the agent-server initialized (no deferred init) without the option', async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
    });
    expect(await workspace.initState()).toBeUndefined();
    expect((await workspace.executeCommand('echo plain')).stdout).toBe('plain\n');
  });
});
