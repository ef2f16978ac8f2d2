import { describe, expect, it } from 'vitest';
import { anySignal } from './any-signal.js';

describe('anySignal', () => {
  it('aborts with the reason of whichever signal aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const merged = anySignal([a.signal, undefined, b.signal]);
    expect(merged.aborted).toBe(false);
    b.abort(new Error('b'));
    a.abort(new Error('a'));
    expect(merged.reason).toEqual(new Error('b'));
  });

  it('is the one signal given, and never aborts when given none', () => {
    const only = new AbortController();
    expect(anySignal([undefined, only.signal])).toBe(only.signal);
    expect(anySignal([undefined]).aborted).toBe(false);
  });
});
