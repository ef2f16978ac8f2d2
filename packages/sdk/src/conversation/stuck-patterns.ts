import type {
  ActionEventWire,
  AgentErrorEventWire,
  ConversationEventWire,
  ObservationEventWire,
} from '@agent-workspace/protocol';

/** Consecutive agent messages (no action, no user message between) that are a monologue (OpenHands: 3). */
export const MONOLOGUE_THRESHOLD = 3;
/** Actions and results of an A, B, A, B, … loop before it counts as stuck (OpenHands: 6). */
export const ALTERNATING_PATTERN_THRESHOLD = 6;

/** An action or its result, as the detector compares them. */
type Step = ActionEventWire | ObservationEventWire | AgentErrorEventWire;

/** What makes two actions the same: the tool and its arguments (ids and times aside). */
export function actionKey(event: ActionEventWire): string {
  return JSON.stringify([event.tool_name, event.action ?? event.tool_call.arguments]);
}

/** What makes two results the same: the observation, or the error text. */
export function resultKey(event: ObservationEventWire | AgentErrorEventWire): string {
  return event.kind === 'AgentErrorEvent'
    ? JSON.stringify(['error', event.error])
    : JSON.stringify([event.tool_name, event.observation]);
}

/**
 * OpenHands' monologue pattern: the newest `threshold` messages of the agent follow one another
 * with no action, result or user message between them (status changes, pauses, errors of the
 * conversation and condensations do not break the run of messages).
 */
export function isMonologue(
  events: readonly ConversationEventWire[],
  threshold = MONOLOGUE_THRESHOLD,
): boolean {
  let messages = 0;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.kind === 'MessageEvent') {
      if (event.source !== 'agent') return false;
      if (++messages >= threshold) return true;
    } else if (
      event.kind === 'ActionEvent' ||
      event.kind === 'ObservationEvent' ||
      event.kind === 'AgentErrorEvent'
    ) {
      return false;
    }
  }
  return false;
}

/**
 * OpenHands' alternating pattern: among the events since the last user message, the newest
 * `threshold` actions go A, B, A, B, … (each the same as the one two before it), and so do the
 * newest `threshold` results.
 */
export function isAlternating(
  events: readonly ConversationEventWire[],
  threshold = ALTERNATING_PATTERN_THRESHOLD,
): boolean {
  const { actions, results } = recentSteps(events, threshold);
  if (actions.length < threshold || results.length < threshold) return false;
  return everyOtherMatches(actions, actionKey) && everyOtherMatches(results, resultKey);
}

function everyOtherMatches<T extends Step>(steps: readonly T[], keyOf: (step: T) => string) {
  const keys = steps.map(keyOf);
  return keys.every((key, index) => index + 2 >= keys.length || key === keys[index + 2]);
}

/**
 * The newest `threshold` actions and the newest `threshold` results (observations and agent
 * errors) since the last user message, newest first: fewer when the run has not made as many.
 */
export function recentSteps(
  events: readonly ConversationEventWire[],
  threshold: number,
): { actions: ActionEventWire[]; results: (ObservationEventWire | AgentErrorEventWire)[] } {
  const actions: ActionEventWire[] = [];
  const results: (ObservationEventWire | AgentErrorEventWire)[] = [];
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.kind === 'MessageEvent' && event.source === 'user') break;
    if (event.kind === 'ActionEvent' && actions.length < threshold) actions.push(event);
    else if (
      (event.kind === 'ObservationEvent' || event.kind === 'AgentErrorEvent') &&
      results.length < threshold
    ) {
      results.push(event);
    }
    if (actions.length === threshold && results.length === threshold) break;
  }
  return { actions, results };
}
