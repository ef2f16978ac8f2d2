import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { executeBashRequestWireSchema } from './execute-bash-request.js';

describe('ExecuteBashRequest', () => {
  it('parses the OpenHands example body', () => {
    const wire = { command: 'ls -la', cwd: '/workspace/project', timeout: 300 };
    expect(executeBashRequestWireSchema.parse(wire)).toStrictEqual(wire);
  });

  it('defaults the timeout to 300 s and accepts a null or absent cwd', () => {
    expect(executeBashRequestWireSchema.parse({ command: 'pwd', cwd: null })).toStrictEqual({
      command: 'pwd',
      cwd: null,
      timeout: 300,
    });
    expect(executeBashRequestWireSchema.parse({ command: 'pwd' })).toStrictEqual({
      command: 'pwd',
      timeout: 300,
    });
  });

  it('keeps a fractional timeout (OpenHands truncated 0.5 to 0)', () => {
    expect(executeBashRequestWireSchema.parse({ command: 'sleep 1', timeout: 0.5 }).timeout).toBe(
      0.5,
    );
  });

  it('names the bad field', () => {
    const parse = (json: unknown) => () => executeBashRequestWireSchema.parse(json);
    expectZodIssueAt(parse({ timeout: 5 }), ['command']);
    expectZodIssueAt(parse({ command: '' }), ['command']);
    expectZodIssueAt(parse({ command: 'ls', timeout: 0 }), ['timeout']);
    expectZodIssueAt(parse({ command: 'ls', timeout: -1 }), ['timeout']);
    expectZodIssueAt(parse({ command: 'ls', timeout: '5' }), ['timeout']);
    expectZodIssueAt(parse({ command: 'ls', cwd: 3 }), ['cwd']);
  });
});
