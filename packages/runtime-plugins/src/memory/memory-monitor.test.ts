import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { isProcessAlive } from '@agent-workspace/core/internal';
import { describe, expect, it } from 'vitest';
import { MemoryMonitor } from './memory-monitor.js';

/** A shell whose child holds `mebibytes` of touched memory until killed. */
function spawnHog(mebibytes: number) {
  const child = spawn(
    'sh',
    [
      '-c',
      `node -e "const b=Buffer.alloc(${mebibytes}*1024*1024,1);setInterval(()=>b[0]++,50)" & wait`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  return child;
}

describe('MemoryMonitor', () => {
  it('measures a watched tree including its children', async () => {
    await using monitor = new MemoryMonitor({ intervalMs: 50 });
    const hog = spawnHog(120);
    try {
      const pid = hog.pid ?? 0;
      monitor.watch({ label: 'hog', pid, onExceeded: () => {} });
      await expect
        .poll(() => monitor.report().trees[0]?.rssBytes ?? 0, { timeout: 20_000 })
        .toBeGreaterThan(100 * 1024 ** 2);
      expect(monitor.report()).toMatchObject({
        limitBytes: undefined,
        trees: [{ label: 'hog', pid }],
      });
      expect(monitor.report().serverRssBytes).toBeGreaterThan(0);
      expect(isProcessAlive(pid)).toBe(true);
    } finally {
      process.kill(-(hog.pid ?? 0), 'SIGKILL');
    }
  });

  it('kills a tree that grows past the limit and says by how much', async () => {
    const limitBytes = 64 * 1024 ** 2;
    await using monitor = new MemoryMonitor({ limitBytes, intervalMs: 50 });
    const hog = spawnHog(200);
    const exited = once(hog, 'exit');
    const exceeded = new Promise<{ rssBytes: number; limitBytes: number }>((resolve) => {
      monitor.watch({ label: 'hog', pid: hog.pid ?? 0, onExceeded: resolve });
    });
    const usage = await exceeded;
    expect(usage.limitBytes).toBe(limitBytes);
    expect(usage.rssBytes).toBeGreaterThan(limitBytes);
    await exited;
    expect(monitor.report().trees).toEqual([]);
  });

  it('rejects a limit that is not a positive number, naming it', () => {
    expect(() => new MemoryMonitor({ limitBytes: -1 })).toThrow(/limitBytes/);
    expect(() => new MemoryMonitor({ intervalMs: Number.NaN })).toThrow(/intervalMs/);
  });
});
