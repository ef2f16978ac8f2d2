import { describe, expect, it } from 'vitest';
import { parseOomKills } from '../internal/process/read-oom-kills.js';
import { classifyTermination } from './classify-termination.js';
import { runLocalCommand } from './run-local-command.js';

const ordinary = { timedOut: false, exitSignal: null, oomKillsBefore: 0, oomKillsAfter: 0 };

describe('classifyTermination', () => {
  it('tells an OOM kill from a program that exits with 137', () => {
    expect(classifyTermination({ ...ordinary, exitCode: 137, oomKillsAfter: 1 })).toBe('oom');
    expect(
      classifyTermination({ ...ordinary, exitCode: 137, exitSignal: 'SIGKILL', oomKillsAfter: 2 }),
    ).toBe('oom');
    expect(classifyTermination({ ...ordinary, exitCode: 137 })).toBeUndefined();
    // No counter readable: never guessed.
    expect(
      classifyTermination({
        ...ordinary,
        exitCode: 137,
        oomKillsBefore: undefined,
        oomKillsAfter: undefined,
      }),
    ).toBeUndefined();
  });

  it('names timeouts, limit signals and other signals; an ordinary exit has no reason', () => {
    expect(classifyTermination({ ...ordinary, exitCode: -1, timedOut: true })).toBe('timeout');
    expect(classifyTermination({ ...ordinary, exitCode: 152 })).toBe('limit');
    expect(classifyTermination({ ...ordinary, exitCode: 153, exitSignal: 'SIGXFSZ' })).toBe(
      'limit',
    );
    expect(classifyTermination({ ...ordinary, exitCode: 143, exitSignal: 'SIGTERM' })).toBe(
      'signal',
    );
    expect(classifyTermination({ ...ordinary, exitCode: 1 })).toBeUndefined();
  });
});

describe('parseOomKills', () => {
  it('reads cgroup v1 memory.oom_control and v2 memory.events', () => {
    expect(parseOomKills('oom_kill_disable 0\nunder_oom 0\noom_kill 3\n')).toBe(3);
    expect(parseOomKills('low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\noom_group_kill 0\n')).toBe(2);
    expect(parseOomKills('')).toBeUndefined();
  });
});

/** `runLocalCommand` of `command` with the options every call needs. */
const run = (command: string, timeoutMs = 10_000) =>
  runLocalCommand({ command, cwd: process.cwd(), timeoutMs, env: {}, maxOutputBytes: 65_536 });

describe('terminationReason of local commands', () => {
  it('is absent for an exit, even exit 137, and names a timeout, a signal and a limit', async () => {
    expect((await run('exit 3')).terminationReason).toBeUndefined();
    expect((await run('exit 137')).terminationReason).toBeUndefined();
    const timedOut = await run('sleep 5', 200);
    expect(timedOut).toMatchObject({ timeoutOccurred: true, terminationReason: 'timeout' });
    const killed = await run('kill -TERM $$');
    expect(killed).toMatchObject({ exitCode: 143, terminationReason: 'signal' });
    const cpu = await run('kill -XCPU $$');
    expect(cpu).toMatchObject({ exitCode: 152, terminationReason: 'limit' });
  });
});
