import { describe, expect, it } from 'vitest';
import { WorkspaceError } from './workspace-error.js';

describe('WorkspaceError', () => {
  it('carries a stable code, cause and details', () => {
    const cause = new Error('ECONNREFUSED');
    const error = new WorkspaceError({
      code: 'CONNECTION_ERROR',
      message: 'cannot reach the agent-server',
      cause,
      details: { host: 'http://127.0.0.1:1' },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WorkspaceError');
    expect(error.code).toBe('CONNECTION_ERROR');
    expect(error.cause).toBe(cause);
    expect(error.details).toEqual({ host: 'http://127.0.0.1:1' });
  });

  it('isInstance recognises errors from another copy of the package', () => {
    // A second copy has its own class but the same global marker symbol.
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('agent-workspace.error')]: true,
      code: 'ABORTED',
    });
    expect(WorkspaceError.isInstance(foreign)).toBe(true);
    expect(WorkspaceError.isInstance(foreign, 'ABORTED')).toBe(true);
    expect(WorkspaceError.isInstance(foreign, 'GIT_ERROR')).toBe(false);
  });

  it('isInstance rejects look-alikes', () => {
    expect(WorkspaceError.isInstance(new Error('x'))).toBe(false);
    expect(WorkspaceError.isInstance({ code: 'ABORTED' })).toBe(false);
    expect(WorkspaceError.isInstance(null)).toBe(false);
    expect(WorkspaceError.isInstance('ABORTED')).toBe(false);
  });
});
