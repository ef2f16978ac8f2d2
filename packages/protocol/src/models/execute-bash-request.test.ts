import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { executeBashRequestFromWire, executeBashRequestToWire } from './execute-bash-request.js';

describe('ExecuteBashRequest', () => {
  it('parses the OpenHands example body', () => {
    const wire = { command: 'ls -la', cwd: '/workspace/project', timeout: 300 };
    const request = executeBashRequestFromWire(wire);
    expect(request).toEqual({ command: 'ls -la', cwd: '/workspace/project', timeoutSeconds: 300 });
    expect(executeBashRequestToWire(request)).toEqual(wire);
  });

  it('defaults the timeout to 300 s and drops a null cwd', () => {
    expect(executeBashRequestFromWire({ command: 'pwd', cwd: null })).toEqual({
      command: 'pwd',
      timeoutSeconds: 300,
    });
  });

  it('keeps a fractional timeout (OpenHands truncated 0.5 to 0)', () => {
    expect(executeBashRequestFromWire({ command: 'sleep 1', timeout: 0.5 }).timeoutSeconds).toBe(
      0.5,
    );
  });

  it('emits an explicit null cwd', () => {
    expect(executeBashRequestToWire({ command: 'pwd', timeoutSeconds: 10 })).toEqual({
      command: 'pwd',
      cwd: null,
      timeout: 10,
    });
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => executeBashRequestFromWire({ timeout: 5 }), ['command']);
    expectZodIssueAt(() => executeBashRequestFromWire({ command: '' }), ['command']);
    expectZodIssueAt(() => executeBashRequestFromWire({ command: 'ls', timeout: 0 }), ['timeout']);
    expectZodIssueAt(() => executeBashRequestFromWire({ command: 'ls', timeout: -1 }), ['timeout']);
    expectZodIssueAt(
      () => executeBashRequestFromWire({ command: 'ls', timeout: '5' }),
      ['timeout'],
    );
    expectZodIssueAt(() => executeBashRequestFromWire({ command: 'ls', cwd: 3 }), ['cwd']);
  });
});
