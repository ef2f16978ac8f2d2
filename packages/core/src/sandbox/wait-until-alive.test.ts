import { describe, expect, it } from 'vitest';
import type { SandboxState } from './sandbox-state.js';
import { waitUntilAlive } from './wait-until-alive.js';

describe('waitUntilAlive', () => {
  it('probes until the server answers, checking the sandbox in between', async () => {
    let probes = 0;
    let checks = 0;
    const result = await waitUntilAlive({
      probe: async () => ++probes === 4,
      state: async () => {
        checks++;
        return { status: 'running' };
      },
      signal: AbortSignal.timeout(10_000),
      initialIntervalMs: 1,
    });
    expect(result).toEqual({ alive: true });
    expect([probes, checks]).toEqual([4, 3]);
  });

  it('stops as soon as the sandbox is gone, with its state', async () => {
    const states: SandboxState[] = [{ status: 'starting' }, { status: 'exited', exitCode: 3 }];
    const result = await waitUntilAlive({
      probe: async () => false,
      state: async () => states.shift()!,
      signal: AbortSignal.timeout(10_000),
      initialIntervalMs: 1,
    });
    expect(result).toEqual({ alive: false, state: { status: 'exited', exitCode: 3 } });
  });

  it('rejects with the reason of the signal when it aborts first', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    const waiting = waitUntilAlive({
      probe: async () => {
        controller.abort(reason);
        return false;
      },
      state: async () => ({ status: 'running' }),
      signal: controller.signal,
    });
    await expect(waiting).rejects.toBe(reason);
  });

  it('probes again as soon as the ready hint settles, not at the next poll', async () => {
    let probes = 0;
    let announce!: () => void;
    const readyHint = new Promise<void>((resolve) => {
      announce = resolve;
    });
    const result = await waitUntilAlive({
      probe: async () => {
        probes += 1;
        if (probes === 1) setImmediate(announce);
        return probes === 2;
      },
      state: async () => ({ status: 'running' }),
      signal: AbortSignal.timeout(20_000),
      // Without the hint the second probe would come a minute later, past the test's timeout.
      initialIntervalMs: 60_000,
      readyHint,
    });
    expect(result).toEqual({ alive: true });
    expect(probes).toBe(2);
  });

  it('keeps polling when the hint fails or the probe after it does', async () => {
    let probes = 0;
    const result = await waitUntilAlive({
      probe: async () => ++probes === 3,
      state: async () => ({ status: 'running' }),
      signal: AbortSignal.timeout(10_000),
      initialIntervalMs: 1,
      readyHint: Promise.reject(new Error('log stream broke')),
    });
    expect(result).toEqual({ alive: true });
    expect(probes).toBe(3);
  });
});
