import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { sandboxError } from './sandbox-error.js';
import { describeSandboxState, isSandboxGone } from './sandbox-state.js';

describe('sandboxError', () => {
  it('appends the state and the indented last log lines, and keeps both in details', () => {
    const cause = new Error('connect ECONNREFUSED');
    const error = sandboxError({
      code: 'SANDBOX_EXITED',
      message: 'the docker sandbox stopped',
      state: { status: 'exited', exitCode: 137, detail: 'OOMKilled' },
      logs: 'starting\nout of memory\n',
      cause,
      details: { step: 'use' },
    });
    expect(WorkspaceError.isInstance(error, 'SANDBOX_EXITED')).toBe(true);
    expect(error.message).toBe(
      'the docker sandbox stopped [the sandbox exited with code 137 (OOMKilled)]\n' +
        'last log lines of the sandbox:\n  | starting\n  | out of memory',
    );
    expect(error.cause).toBe(cause);
    expect(error.details).toEqual({
      step: 'use',
      state: 'exited',
      exitCode: 137,
      logs: 'starting\nout of memory\n',
    });
  });

  it('says when the sandbox logged nothing, and omits what it does not know', () => {
    expect(sandboxError({ code: 'PROVISIONING_ERROR', message: 'x', logs: '' }).message).toBe(
      'x\n(the sandbox logged nothing)',
    );
    const bare = sandboxError({ code: 'PROVISIONING_ERROR', message: 'x' });
    expect(bare.message).toBe('x');
    expect(bare.details).toEqual({});
  });
});

describe('sandbox state', () => {
  it('describes each status and tells which are gone', () => {
    expect(describeSandboxState({ status: 'missing' })).toBe('no longer exists');
    expect(describeSandboxState({ status: 'exited', exitCode: 2 })).toBe('exited with code 2');
    expect(describeSandboxState({ status: 'running' })).toBe('is running');
    expect(
      ['starting', 'running', 'paused', 'exited', 'missing'].filter((status) =>
        isSandboxGone({ status: status as 'running' }),
      ),
    ).toEqual(['exited', 'missing']);
  });
});
