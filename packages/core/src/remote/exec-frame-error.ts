import type { ExecServerFrameWire } from '@agent-workspace/protocol';
import { EXEC_ERROR_OUTCOMES, type WorkspaceErrorCode } from '@agent-workspace/protocol/constants';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { ExecEntry } from './exec-connection-types.js';

/** An `error` frame of the exec channel. */
export type ExecErrorFrame = Extract<ExecServerFrameWire, { type: 'error' }>;

/**
 * The code a caller gets for `frame` (see `EXEC_ERROR_OUTCOMES`), refined by context: a refused
 * `start` is the caller's `INVALID_ARGUMENT`, and confinement refusing its cwd an `INVALID_CWD`.
 * `null` when the frame is no failure of the command.
 */
export function execFrameOutcome(
  frame: ExecErrorFrame,
  starting: boolean,
): WorkspaceErrorCode | null {
  if (frame.code === 'INVALID_FRAME' && starting) return 'INVALID_ARGUMENT';
  if (frame.code === 'FORBIDDEN' && frame.field === 'cwd') return 'INVALID_CWD';
  return EXEC_ERROR_OUTCOMES[frame.code];
}

/** The typed error of an `error` frame about `entry` (if any) from the agent-server at `host`. */
export function execFrameError(
  frame: ExecErrorFrame,
  code: WorkspaceErrorCode,
  entry: ExecEntry | undefined,
  host: string,
): WorkspaceError {
  const details = { host, serverCode: frame.code, commandId: frame.command_id };
  const starting = entry !== undefined && entry.commandId === undefined;
  switch (code) {
    case 'INVALID_CWD':
      return new WorkspaceError({
        code,
        message: `invalid cwd ${entry?.spec.cwd ?? ''}: ${frame.detail}`,
        details: { ...details, path: entry?.spec.cwd },
      });
    case 'RESOURCE_EXHAUSTED':
      return new WorkspaceError({
        code,
        message: `the agent-server at ${host} is busy: ${frame.detail}`,
        details,
      });
    case 'FORBIDDEN':
    case 'SPAWN_ERROR':
      return new WorkspaceError({ code, message: frame.detail, details });
    case 'CONNECTION_ERROR':
      return new WorkspaceError({
        code,
        message:
          frame.code === 'HISTORY_EXPIRED'
            ? `the agent-server at ${host} dropped output this client had not received yet (retention or size limit): ${frame.detail}`
            : `the agent-server at ${host} no longer knows the command after reconnecting (did it restart without its state?): ${frame.detail}`,
        details,
      });
    case 'INVALID_ARGUMENT':
    case 'PROTOCOL_ERROR':
      // A refused start names the offending field of the caller's input.
      return new WorkspaceError({
        code,
        message: `the agent-server at ${host} rejected ${starting ? 'the command' : 'an exec frame'}: ${frame.detail}`,
        details: frame.field ? { ...details, field: frame.field } : details,
      });
    default:
      return new WorkspaceError({
        code,
        message: `the agent-server at ${host} failed the command (${frame.code}): ${frame.detail}`,
        details,
      });
  }
}
