import { describe, expect, it } from 'vitest';
import { retryAfterFailure } from './retry-after-failure.js';

describe('retryAfterFailure', () => {
  it('shares one load between calls, and loads again after a failure only', async () => {
    let loads = 0;
    const outcomes = [Promise.reject(new Error('first fails')), Promise.resolve('second')];
    for (const outcome of outcomes) outcome.catch(() => {});
    const value = retryAfterFailure(() => outcomes[loads++]!);
    const [a, b] = [value(), value()];
    expect(a).toBe(b);
    await expect(a).rejects.toThrow('first fails');
    expect(await value()).toBe('second');
    expect(await value()).toBe('second');
    expect(loads).toBe(2);
  });
});
