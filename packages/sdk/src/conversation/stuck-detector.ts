import { invalidArgument } from '@agent-workspace/core';
import type { ConversationEventWire } from '@agent-workspace/protocol';
import {
  ALTERNATING_PATTERN_THRESHOLD,
  actionKey,
  isAlternating,
  isMonologue,
  MONOLOGUE_THRESHOLD,
  recentSteps,
  resultKey,
} from './stuck-patterns.js';

/** Largest stuck-detection threshold. */
export const MAX_STUCK_THRESHOLD = 100;

/** Repetitions after which a run is stuck, by default (OpenHands' threshold). */
export const DEFAULT_STUCK_THRESHOLD = 4;

/** Why {@link detectStuck} thinks the agent is stuck (OpenHands' patterns). */
export interface StuckPattern {
  /**
   * `action_observation_loop`: the same action with the same result; `action_error_loop`: the
   * same action failing every time; `monologue`: agent messages one after another with nothing
   * done between; `alternating_pattern`: two actions taking turns with the same two results.
   */
  pattern: 'action_observation_loop' | 'action_error_loop' | 'monologue' | 'alternating_pattern';
  /** For people. */
  description: string;
}

/**
 * Whether the agent repeats itself since the last user message: the last `threshold` actions
 * are the same (tool and arguments) and their last `threshold` results are the same observation,
 * or are all agent errors; or, with OpenHands' own thresholds, the agent talks to itself
 * ({@link MONOLOGUE_THRESHOLD} messages in a row) or alternates between two actions
 * ({@link ALTERNATING_PATTERN_THRESHOLD} of each, A, B, A, B, …). A new user message starts the
 * count again. (OpenHands' fifth pattern, context-window errors, is never reported by OpenHands
 * either.)
 */
export function detectStuck(
  events: readonly ConversationEventWire[],
  threshold = DEFAULT_STUCK_THRESHOLD,
): StuckPattern | undefined {
  const repeated = repeatedAction(events, threshold);
  if (repeated !== undefined) return repeated;
  if (isMonologue(events)) {
    return {
      pattern: 'monologue',
      description: `The agent sent ${MONOLOGUE_THRESHOLD} messages in a row without doing anything or hearing from the user.`,
    };
  }
  if (isAlternating(events)) {
    return {
      pattern: 'alternating_pattern',
      description: `The agent alternated between the same two actions ${ALTERNATING_PATTERN_THRESHOLD} times, with the same results.`,
    };
  }
  return undefined;
}

/** The action-observation and action-error loops. */
function repeatedAction(
  events: readonly ConversationEventWire[],
  threshold: number,
): StuckPattern | undefined {
  const { actions, results } = recentSteps(events, threshold);
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
  if (results.some((result) => result.kind === 'AgentErrorEvent')) return undefined;
  const observed = results.map(resultKey);
  if (observed.every((key) => key === observed[0])) {
    return {
      pattern: 'action_observation_loop',
      description: `The agent called ${tool} the same way ${threshold} times, with the same result.`,
    };
  }
  return undefined;
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
