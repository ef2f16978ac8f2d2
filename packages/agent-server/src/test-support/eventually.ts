import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `check` gives a value (tests wait for events, never for a fixed time). */
export async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(20);
  }
  throw new Error('condition never held');
}
