import { describe, expect, it } from 'vitest';
import { raceSignal } from './race-signal.js';

describe('raceSignal', () => {
  it('settles like the promise, or with the reason as soon as the signal aborts', async () => {
    await expect(raceSignal(Promise.resolve(1), AbortSignal.timeout(10_000))).resolves.toBe(1);
    const controller = new AbortController();
    const never = new Promise<never>(() => {});
    const raced = raceSignal(never, controller.signal);
    controller.abort(new Error('stop'));
    await expect(raced).rejects.toThrow('stop');
    await expect(raceSignal(Promise.resolve(2), AbortSignal.abort('x'))).rejects.toBe('x');
  });
});
