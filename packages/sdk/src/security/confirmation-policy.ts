import { invalidArgument } from '@agent-workspace/core';
import {
  type ConfirmationPolicyInputWire,
  type ConfirmationPolicyWire,
  confirmationPolicyWireSchema,
  type SecurityRisk,
} from '@agent-workspace/protocol';
import { isAtLeastAsRisky } from './security-risk.js';

/**
 * When a step's actions wait for the user (OpenHands' confirmation policies):
 * `{ kind: 'NeverConfirm' }` (default), `{ kind: 'AlwaysConfirm' }`, or
 * `{ kind: 'ConfirmRisky', threshold?: 'LOW' | 'MEDIUM' | 'HIGH', confirm_unknown?: boolean }`.
 */
export type ConfirmationPolicy = ConfirmationPolicyWire;

/** A confirmation policy as it may be given (`ConfirmRisky`'s defaults may be left out). */
export type ConfirmationPolicyInput = ConfirmationPolicyInputWire;

/** The default policy: nothing waits. */
export const NEVER_CONFIRM: ConfirmationPolicy = Object.freeze({ kind: 'NeverConfirm' });

/**
 * The policy `input` describes, defaults filled in (`ConfirmRisky`: threshold `HIGH`,
 * `confirm_unknown` true).
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `field` (and the bad part: an unknown kind, a
 * threshold that is not LOW/MEDIUM/HIGH, an unknown field).
 */
export function parseConfirmationPolicy(
  input: unknown,
  field = 'confirmationPolicy',
): ConfirmationPolicy {
  const parsed = confirmationPolicyWireSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const at = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
  throw invalidArgument(`${field}${at}`, issue.message);
}

/** Whether an action of `risk` must wait for the user under `policy` (OpenHands' `should_confirm`). */
export function shouldConfirm(policy: ConfirmationPolicy, risk: SecurityRisk): boolean {
  switch (policy.kind) {
    case 'NeverConfirm':
      return false;
    case 'AlwaysConfirm':
      return true;
    case 'ConfirmRisky':
      return risk === 'UNKNOWN' ? policy.confirm_unknown : isAtLeastAsRisky(risk, policy.threshold);
  }
}
