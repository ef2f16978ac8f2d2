import { WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_STUCK,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  MAX_ITERATIONS_REACHED,
} from '@agent-workspace/protocol';
import { detectStuck } from './stuck-detector.js';

/** Why a run ends before its next step: the error event's code and detail, and the status. */
export interface RunStop {
  code: string;
  detail: string;
  status: Extract<ConversationExecutionStatus, 'stuck' | 'error'>;
}

/**
 * Whether a run must end before its next step: the agent repeats itself (`stuck`, when
 * `stuckThreshold` > 0), or it used up `maxIterations` (`error`); `undefined` to go on.
 */
export function runStopBeforeStep(options: {
  events: readonly ConversationEventWire[];
  stuckThreshold: number;
  iterations: number;
  maxIterations: number;
}): RunStop | undefined {
  const stuck =
    options.stuckThreshold > 0 ? detectStuck(options.events, options.stuckThreshold) : undefined;
  if (stuck !== undefined) return { code: AGENT_STUCK, detail: stuck.description, status: 'stuck' };
  if (options.iterations >= options.maxIterations) {
    return {
      code: MAX_ITERATIONS_REACHED,
      detail: `Agent reached maximum iterations limit (${options.maxIterations}).`,
      status: 'error',
    };
  }
  return undefined;
}

/** The error event of a step that threw: its `WorkspaceError` code or error name, and message. */
export function stepFailure(error: unknown): RunStop {
  const code = WorkspaceError.isInstance(error)
    ? error.code
    : error instanceof Error
      ? error.name
      : 'Error';
  return {
    code,
    detail: error instanceof Error ? error.message : String(error),
    status: 'error',
  };
}

/** True when a user message is among the `recorded` newest events: the agent must answer it. */
export function userMessageArrived(
  events: readonly ConversationEventWire[],
  recorded: number,
): boolean {
  return events
    .slice(Math.max(0, events.length - recorded))
    .some((event) => event.kind === 'MessageEvent' && event.source === 'user');
}
