/**
 * A DockerWorkspace's limits on a real engine: `metrics()` reports them and the container's use,
 * and the container's memory cgroup reports an OOM kill as `oom`, not as a bare exit 137.
 */
import { resourceMetricsOf } from '@agent-workspace/core';
import { afterAll, expect, it } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

const MEMORY = 256 * 1024 * 1024;

context.describe('DockerWorkspace resources', () => {
  it('reports its limits and use, an OOM kill as oom (the server living on), and a timeout', async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      resources: { memoryBytes: MEMORY, cpus: 1.5, pidsLimit: 200 },
    });
    const metrics = resourceMetricsOf(workspace);
    expect(metrics).toBeDefined();
    const before = await metrics!.metrics();
    expect(before).toMatchObject({ memoryLimitBytes: MEMORY, cpuLimit: 1.5, pidsLimit: 200 });
    expect(before.memoryBytes).toBeGreaterThan(0);
    expect(before.pids).toBeGreaterThan(0);
    expect(before.cpuSeconds).toBeGreaterThan(0);
    expect(before.diskTotalBytes).toBeGreaterThan(0);
    // `tail` keeps the whole last "line" of 1 GiB of zeros in memory.
    const hungry = await workspace.executeCommand('head -c 1073741824 /dev/zero | tail');
    expect(hungry).toMatchObject({ exitCode: 137, terminationReason: 'oom' });
    const after = await metrics!.metrics();
    expect(after.oomKills).toBe((before.oomKills ?? 0) + 1);
    expect(after.cpuSeconds).toBeGreaterThan(before.cpuSeconds!);
    const chosen = await workspace.executeCommand('exit 137');
    expect(chosen.exitCode).toBe(137);
    expect(chosen.terminationReason).toBeUndefined();
    const timedOut = await workspace.executeCommand('sleep 5', { timeoutMs: 300 });
    expect(timedOut).toMatchObject({ timeoutOccurred: true, terminationReason: 'timeout' });
  });

  it('limits the writable layer with resources.diskBytes, or names the field when the storage driver cannot', async () => {
    const diskBytes = 64 * 1024 * 1024;
    let workspace: DockerWorkspace | undefined;
    try {
      workspace = await DockerWorkspace.create({
        image: context.image,
        labels: context.labels,
        resources: { diskBytes },
      });
    } catch (error) {
      // overlay2 on ext4 (this machine's engine): the engine refuses, nothing is left behind.
      expect(error).toMatchObject({
        code: 'INVALID_CONFIG',
        details: { fields: ['resources.diskBytes'] },
        message: expect.stringContaining('storage'),
      });
      expect(await context.containerIds()).toEqual([]);
      return;
    }
    await using limited = workspace;
    const written = await limited.executeCommand('head -c 134217728 /dev/zero > /tmp/big');
    expect(written.exitCode).not.toBe(0);
    expect(written.stderr).toMatch(/No space left/);
  });
});
