import { describe, expect, it } from 'vitest';
import { CommandOutput } from './command-output.js';

const outcome = { command: 'x', exitCode: 0, timeoutOccurred: false, durationMs: 1 };

describe('CommandOutput', () => {
  it('forwards chunks to the right callback and keeps both streams apart', () => {
    const out: string[] = [];
    const err: string[] = [];
    const output = new CommandOutput({
      maxBytes: 1024,
      onStdout: (chunk) => out.push(chunk),
      onStderr: (chunk) => err.push(chunk),
    });
    output.write('stdout', 'a');
    output.write('stderr', 'b');
    output.write('stdout', '');
    output.write('stdout', 'c');
    expect(out).toEqual(['a', 'c']);
    expect(err).toEqual(['b']);
    expect(output.result(outcome)).toEqual({ ...outcome, stdout: 'ac', stderr: 'b' });
  });

  it('keeps the tail of each stream with the truncation marker, whole characters only', () => {
    const output = new CommandOutput({ maxBytes: 5 });
    output.write('stdout', '0123456789');
    // "é" is two bytes; the cap cuts through the first one, which must not leave garbage.
    output.write('stderr', 'éééé');
    const result = output.result(outcome);
    expect(result.stdout).toBe('[... 5 bytes truncated ...]\n56789');
    expect(result.stderr).toBe('[... 4 bytes truncated ...]\néé');
  });

  it('lets an error thrown by a callback propagate', () => {
    const output = new CommandOutput({
      maxBytes: 10,
      onStderr: () => {
        throw new Error('listener failed');
      },
    });
    expect(() => output.write('stderr', 'x')).toThrowError('listener failed');
  });
});
