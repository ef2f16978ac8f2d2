import type { ActionEventWire } from '@agent-workspace/protocol';
import type { PlannedCall } from './plan-call.js';

/** What an {@link ActionReviewer} decided about the actions of one step. */
export interface ActionReview {
  /** The actions as they are to be recorded (e.g. with `security_risk`): same order and length. */
  actions: ActionEventWire[];
  /** True: record the actions but run none; the conversation waits for confirmation. */
  hold: boolean;
}

/**
 * Reviews the valid actions of one agent step before any runs (the seam of confirmation mode,
 * `AgentStepContext.review`): rates them and says whether they may run now.
 */
export type ActionReviewer = (actions: readonly ActionEventWire[]) => Promise<ActionReview>;

/**
 * Puts the step's valid planned calls through `review` (refused calls are not reviewed: they
 * never run) and writes the reviewed actions back into `planned`. Resolves to whether the calls
 * are held. Without a reviewer nothing is held.
 */
export async function reviewPlannedCalls(
  planned: PlannedCall[],
  review: ActionReviewer | undefined,
): Promise<boolean> {
  if (review === undefined) return false;
  const valid = planned.filter((plan) => plan.tool !== undefined);
  if (valid.length === 0) return false;
  const { actions, hold } = await review(valid.map((plan) => plan.action));
  valid.forEach((plan, index) => {
    plan.action = actions[index] ?? plan.action;
  });
  return hold;
}
