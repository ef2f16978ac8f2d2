import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StartGate } from './start-gate.js';

describe('StartGate', () => {
  it('runs critical sections one at a time, in call order, past failures', async () => {
    const gate = new StartGate();
    const events: string[] = [];
    const section = (name: string, ms: number, fail = false) =>
      gate.exclusive(async () => {
        events.push(`${name}+`);
        await sleep(ms);
        events.push(`${name}-`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([
      section('a', 30),
      section('b', 1, true),
      section('c', 10),
    ]);
    expect(events).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('tracks starts in flight until they settle, either way', async () => {
    const gate = new StartGate();
    let finish: (value: string) => void = () => {};
    const started = gate.track('s1', new Promise<string>((resolve) => (finish = resolve)));
    const failed = gate.track('s2', Promise.reject(new Error('engine said no')));
    expect([...gate.starting]).toEqual(['s1', 's2']);
    await expect(failed).rejects.toThrow('engine said no');
    await expect(gate.inFlight('s2') ?? Promise.resolve()).resolves.toBeUndefined();
    expect([...gate.starting]).toEqual(['s1']);
    const waiting = gate.inFlight('s1');
    finish('done');
    await expect(started).resolves.toBe('done');
    await expect(waiting).resolves.toBeUndefined();
    expect(gate.starting.size).toBe(0);
    expect(gate.inFlight('s1')).toBeUndefined();
  });
});
