import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('grows by the factor up to the cap and starts over on reset', () => {
    const delay = new Backoff({ initialMs: 5, maxMs: 100 });
    expect(Array.from({ length: 8 }, () => delay.next())).toEqual([
      5, 10, 20, 40, 80, 100, 100, 100,
    ]);
    delay.reset();
    expect(delay.next()).toBe(5);
  });

  it('honours a custom factor and an initial delay above the cap', () => {
    const triple = new Backoff({ initialMs: 1, maxMs: 50, factor: 3 });
    expect([triple.next(), triple.next(), triple.next(), triple.next(), triple.next()]).toEqual([
      1, 3, 9, 27, 50,
    ]);
    expect(new Backoff({ initialMs: 500, maxMs: 100 }).next()).toBe(100);
  });
});
