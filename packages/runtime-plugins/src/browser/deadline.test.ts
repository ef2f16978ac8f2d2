import { describe, expect, it } from 'vitest';
import { Deadline } from './deadline.js';

describe('Deadline', () => {
  it('answers a promise that settles in time', async () => {
    await expect(Deadline.after(5_000).race(Promise.resolve(42))).resolves.toEqual({
      settled: true,
      value: 42,
    });
    await expect(Deadline.after(5_000).race(Promise.reject(new Error('no')))).rejects.toThrow('no');
  });

  it('gives up on a promise that never settles, at the deadline or the cap', async () => {
    const never = new Promise<never>(() => {});
    await expect(Deadline.after(20).race(never)).resolves.toEqual({ settled: false });
    await expect(Deadline.after(60_000).race(never, 20)).resolves.toEqual({ settled: false });
  });

  it('expires when its signal aborts', async () => {
    const controller = new AbortController();
    const deadline = Deadline.after(60_000, controller.signal);
    const raced = deadline.race(new Promise<never>(() => {}));
    controller.abort();
    await expect(raced).resolves.toEqual({ settled: false });
    expect(deadline.expired).toBe(true);
    expect(deadline.aborted).toBe(true);
    expect(deadline.remainingMs()).toBe(0);
  });

  it('never hands Playwright a timeout of 0 (which means none) and caps it', () => {
    const passed = Deadline.after(0);
    expect(passed.expired).toBe(true);
    expect(passed.timeoutMs()).toBe(1);
    expect(Deadline.after(60_000).timeoutMs(500)).toBe(500);
  });

  it('makes an earlier deadline, never before now', () => {
    const deadline = Deadline.after(10_000);
    const earlier = deadline.earlier(4_000);
    const gap = deadline.remainingMs() - earlier.remainingMs();
    expect(gap).toBeGreaterThanOrEqual(4_000);
    expect(earlier.expired).toBe(false);
    expect(deadline.earlier(60_000).expired).toBe(true);
  });
});
