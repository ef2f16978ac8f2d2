import {
  type ExecErrorCode,
  execErrorCodeSchema,
  WORKSPACE_ERROR_WIRE,
  type WorkspaceErrorCode,
} from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import type { ExecEntry } from './exec-connection-types.js';
import { type ExecErrorFrame, execFrameError, execFrameOutcome } from './exec-frame-error.js';

function frame(code: ExecErrorCode, field?: string): ExecErrorFrame {
  return {
    type: 'error',
    command_id: null,
    request_id: 'r1',
    code,
    ...(field === undefined ? {} : { field }),
    detail: `${field ?? 'frame'} refused`,
  };
}

const starting: ExecEntry = {
  requestId: 'r1',
  spec: { command: 'true', cwd: '/work/dir', timeoutSeconds: 1, env: {} },
  listener: undefined,
  lastOrder: -1,
};

describe('execFrameOutcome', () => {
  it('gives every frame code an outcome', () => {
    for (const code of execErrorCodeSchema.options) {
      expect(execFrameOutcome(frame(code), false), code).not.toBeUndefined();
    }
  });

  it('brings a start failure back to the code the server raised', () => {
    const roundTrips: Array<[WorkspaceErrorCode, string | undefined, WorkspaceErrorCode]> = [
      ['INVALID_ARGUMENT', 'env.A=B', 'INVALID_ARGUMENT'],
      ['INVALID_CWD', 'cwd', 'INVALID_CWD'],
      ['NOT_FOUND', 'cwd', 'INVALID_CWD'],
      ['FORBIDDEN', 'cwd', 'INVALID_CWD'],
      ['FORBIDDEN', 'command', 'FORBIDDEN'],
      ['RESOURCE_EXHAUSTED', undefined, 'RESOURCE_EXHAUSTED'],
      ['SPAWN_ERROR', undefined, 'SPAWN_ERROR'],
      ['WORKSPACE_CLOSED', undefined, 'SERVER_ERROR'],
      ['ABORTED', undefined, 'SERVER_ERROR'],
    ];
    for (const [raised, field, expected] of roundTrips) {
      const sent = frame(WORKSPACE_ERROR_WIRE[raised].execCode, field);
      expect(execFrameOutcome(sent, true), `${raised} ${field ?? ''}`).toBe(expected);
    }
  });

  it('reads a bad frame after the start as a protocol error, and ignores late answers', () => {
    expect(execFrameOutcome(frame('INVALID_FRAME'), false)).toBe('PROTOCOL_ERROR');
    expect(execFrameOutcome(frame('NOT_RUNNING'), false)).toBeNull();
    expect(execFrameOutcome(frame('STDIN_CLOSED'), false)).toBeNull();
    expect(execFrameOutcome(frame('HISTORY_EXPIRED'), false)).toBe('CONNECTION_ERROR');
    expect(execFrameOutcome(frame('UNKNOWN_COMMAND'), false)).toBe('CONNECTION_ERROR');
  });
});

describe('execFrameError', () => {
  it('names the cwd and the field the server refused', () => {
    const cwd = execFrameError(frame('FORBIDDEN', 'cwd'), 'INVALID_CWD', starting, 'http://h');
    expect(cwd.message).toBe('invalid cwd /work/dir: cwd refused');
    expect(cwd.details).toMatchObject({ path: '/work/dir', serverCode: 'FORBIDDEN' });
    const argument = execFrameError(
      frame('INVALID_FRAME', 'env.A=B'),
      'INVALID_ARGUMENT',
      starting,
      'http://h',
    );
    expect(argument.message).toBe(
      'the agent-server at http://h rejected the command: env.A=B refused',
    );
    expect(argument.details.field).toBe('env.A=B');
  });

  it('says output was lost when the history expired', () => {
    const error = execFrameError(frame('HISTORY_EXPIRED'), 'CONNECTION_ERROR', undefined, 'h');
    expect(error.code).toBe('CONNECTION_ERROR');
    expect(error.message).toContain('dropped output');
  });
});
