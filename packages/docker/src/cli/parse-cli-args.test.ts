import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from './parse-cli-args.js';

/** The error `parseCliArgs(args)` throws. */
function errorOf(args: string[]): WorkspaceError {
  try {
    parseCliArgs(args);
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) return error;
    throw error;
  }
  throw new Error(`parseCliArgs(${JSON.stringify(args)}) did not throw`);
}

describe('parseCliArgs', () => {
  it('parses both commands with their flags', () => {
    expect(parseCliArgs(['build-base-image'])).toEqual({ kind: 'build-base-image' });
    expect(
      parseCliArgs(['build-base-image', '--suite', 'trixie', '--mirror', 'http://m.test/debian']),
    ).toMatchObject({ kind: 'build-base-image', suite: 'trixie', mirror: 'http://m.test/debian' });
    expect(parseCliArgs(['build-image', '--base-image=b:1', '--tag', 'x/y:z'])).toEqual({
      kind: 'build-image',
      baseImage: 'b:1',
      tag: 'x/y:z',
    });
    expect(
      parseCliArgs(['build-image', '--base-image', 'b', '--agent-server-dir', 'vendor/server']),
    ).toMatchObject({ agentServerDir: path.resolve('vendor/server') });
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['build-image', '-v'])).toEqual({ kind: 'version' });
  });

  it('names the flag or command that is wrong', () => {
    expect(errorOf([]).message).toContain('command must be build-base-image or build-image');
    expect(errorOf(['constructor']).details.field).toBe('command');
    expect(errorOf(['build-image']).details.field).toBe('--base-image');
    expect(errorOf(['build-image', '--base-image', 'b', '--suite', 's']).details.field).toBe(
      '--suite',
    );
    expect(errorOf(['build-base-image', '--tag', '']).details.field).toBe('--tag');
    expect(errorOf(['build-base-image', '--agent-server-dir', 'x']).details.field).toBe(
      '--agent-server-dir',
    );
    expect(
      errorOf(['build-image', '--base-image', 'b', '--agent-server-dir', '']).details.field,
    ).toBe('--agent-server-dir');
    expect(errorOf(['build-base-image', 'extra']).message).toContain('"extra"');
    expect(errorOf(['build-base-image', '--nope']).message).toContain('--nope');
  });

  it('checks image references with the one validator', () => {
    expect(errorOf(['build-image', '--base-image', 'Bad Name']).details.field).toBe('--base-image');
    expect(errorOf(['build-image', '--base-image', 'b', '--tag', 'x:-1']).details.field).toBe(
      '--tag',
    );
    const digestTag = errorOf(['build-base-image', '--tag', `x@sha256:${'a'.repeat(64)}`]);
    expect(digestTag.message).toContain('a digest (@...) cannot name an image');
    expect(
      parseCliArgs(['build-image', '--base-image', `node:20@sha256:${'a'.repeat(64)}`]),
    ).toMatchObject({ baseImage: `node:20@sha256:${'a'.repeat(64)}` });
  });
});
