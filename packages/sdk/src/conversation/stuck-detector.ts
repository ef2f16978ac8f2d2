import { invalidArgument } from '@agent-workspace/core';
import type {
  ActionEventWire,
  AgentErrorEventWire,
  ConversationEventWire,
  ObservationEventWire,
} from '@agent-workspace/protocol';

/** Largest stuck-detection threshold. */
export const MAX_STUCK_THRESHOLD = 100;

/** Repetitions after which a run is stuck, by default (OpenHands' threshold). */
export const DEFAULT_STUCK_THRESHOLD = 4;

/** Why {@link detectStuck} thinks the agent is stuck. */
export interface StuckPattern {
  /** The same action with the same observation, or the same action failing every time. */
  pattern: 'action_observation_loop' | 'action_error_loop';
  /** For people. */
  description: string;
}

/**
 * Whether the agent repeats itself since the last user message: the last `threshold` actions
 * are the same (tool and arguments) and their last `threshold` results are the same observation,
 * or are all agent errors. A new user message starts the count again.
 */
export function detectStuck(
  events: readonly ConversationEventWire[],
  threshold = DEFAULT_STUCK_THRESHOLD,
): StuckPattern | undefined {
  const actions: ActionEventWire[] = [];
  const results: (ObservationEventWire | AgentErrorEventWire)[] = [];
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.kind === 'MessageEvent' && event.source === 'user') break;
    if (event.kind === 'ActionEvent' && actions.length < threshold) actions.push(event);
    if (
      (event.kind === 'ObservationEvent' || event.kind === 'AgentErrorEvent') &&
      results.length < threshold
    ) {
      results.push(event);
    }
    if (actions.length >= threshold && results.length >= threshold) break;
  }
  if (actions.length < threshold || results.length < threshold) return undefined;
  const first = actionKey(actions[0]!);
  if (!actions.every((action) => actionKey(action) === first)) return undefined;
  const tool = actions[0]!.tool_name;
  if (results.every((result) => result.kind === 'AgentErrorEvent')) {
    return {
      pattern: 'action_error_loop',
      description: `The agent called ${tool} the same way ${threshold} times, and it failed every time.`,
    };
  }
  const observed = results.map(observationKey);
  if (observed[0] !== undefined && observed.every((key) => key === observed[0])) {
    return {
      pattern: 'action_observation_loop',
      description: `The agent called ${tool} the same way ${threshold} times, with the same result.`,
    };
  }
  return undefined;
}

/** What makes two actions the same: the tool and its arguments (ids and times aside). */
function actionKey(event: ActionEventWire): string {
  return JSON.stringify([event.tool_name, event.action ?? event.tool_call.arguments]);
}

/** What makes two results the same; `undefined` for an error among observations. */
function observationKey(event: ObservationEventWire | AgentErrorEventWire): string | undefined {
  if (event.kind === 'AgentErrorEvent') return undefined;
  return JSON.stringify([event.tool_name, event.observation]);
}

/**
 * The threshold a conversation's `stuckDetection` option asks for: default, `0` (off) or its
 * own, an integer from 2 to {@link MAX_STUCK_THRESHOLD}.
 */
export function stuckThresholdOf(option: boolean | { threshold: number } | undefined): number {
  if (option === undefined || option === true) return DEFAULT_STUCK_THRESHOLD;
  if (option === false) return 0;
  const { threshold } = option;
  if (!Number.isInteger(threshold) || threshold < 2 || threshold > MAX_STUCK_THRESHOLD) {
    throw invalidArgument(
      'stuckDetection.threshold',
      `must be an integer from 2 to ${MAX_STUCK_THRESHOLD}`,
    );
  }
  return threshold;
}
