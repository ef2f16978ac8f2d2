import type { ExecServerFrameWire } from '@agent-workspace/protocol';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { ExecEntry } from './exec-connection-types.js';

/** An `error` frame of the exec channel. */
export type ExecErrorFrame = Extract<ExecServerFrameWire, { type: 'error' }>;

/** The typed error of an `error` frame about `entry` (if any) from the agent-server at `host`. */
export function execFrameError(
  frame: ExecErrorFrame,
  entry: ExecEntry | undefined,
  host: string,
): WorkspaceError {
  const details = { host, serverCode: frame.code, commandId: frame.command_id };
  const starting = entry !== undefined && entry.commandId === undefined;
  if (
    frame.code === 'INVALID_CWD' ||
    (frame.code === 'FORBIDDEN' && /\bcwd\b/.test(frame.detail))
  ) {
    return new WorkspaceError({
      code: 'INVALID_CWD',
      message: `invalid cwd ${entry?.spec.cwd ?? ''}: ${frame.detail}`,
      details: { ...details, path: entry?.spec.cwd },
    });
  }
  switch (frame.code) {
    case 'TOO_MANY_COMMANDS':
      return new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message: `the agent-server at ${host} is busy: ${frame.detail}`,
        details,
      });
    case 'FORBIDDEN':
      return new WorkspaceError({ code: 'FORBIDDEN', message: frame.detail, details });
    case 'SPAWN_ERROR':
      return new WorkspaceError({ code: 'SPAWN_ERROR', message: frame.detail, details });
    case 'UNKNOWN_COMMAND':
      return new WorkspaceError({
        code: 'CONNECTION_ERROR',
        message: `the agent-server at ${host} no longer knows the command after reconnecting (did it restart without its state?): ${frame.detail}`,
        details,
      });
    case 'INVALID_FRAME':
      // A refused start names the offending field of the caller's input.
      return new WorkspaceError({
        code: starting ? 'INVALID_ARGUMENT' : 'PROTOCOL_ERROR',
        message: `the agent-server at ${host} rejected ${starting ? 'the command' : 'an exec frame'}: ${frame.detail}`,
        details,
      });
    default:
      return new WorkspaceError({
        code: 'SERVER_ERROR',
        message: `the agent-server at ${host} failed the command (${frame.code}): ${frame.detail}`,
        details,
      });
  }
}
