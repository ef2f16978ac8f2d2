import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/**
 * OpenHands' `SecurityRisk` values: how risky an action is. `UNKNOWN` (no analyzer, or it could
 * not tell) is not comparable with the others and cannot be a threshold.
 */
export const SECURITY_RISKS = ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'] as const;

/** A security risk level. */
export type SecurityRisk = (typeof SECURITY_RISKS)[number];

/** A security risk level (`security_risk` of an `ActionEvent`): a part of wire models. */
export const securityRiskSchema = z.enum(SECURITY_RISKS);

/** The kinds of confirmation policy (OpenHands' `ConfirmationPolicyBase` subclasses). */
export const CONFIRMATION_POLICY_KINDS = ['NeverConfirm', 'AlwaysConfirm', 'ConfirmRisky'] as const;

/** The risk levels a `ConfirmRisky` threshold may be. */
const thresholdSchema = z.enum(['LOW', 'MEDIUM', 'HIGH'], {
  error: 'must be LOW, MEDIUM or HIGH (UNKNOWN cannot be a threshold)',
});

/**
 * Wire shape of OpenHands' confirmation policy, by `kind`: `NeverConfirm` (the default: nothing
 * waits), `AlwaysConfirm` (every step's actions wait for the user), `ConfirmRisky` (actions wait
 * when their risk is at least `threshold`, default `HIGH`; an `UNKNOWN` risk waits unless
 * `confirm_unknown` is false). Strict: an unknown kind or field is refused, naming it.
 */
export const confirmationPolicyWireSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('NeverConfirm') }),
    z.strictObject({ kind: z.literal('AlwaysConfirm') }),
    z.strictObject({
      kind: z.literal('ConfirmRisky'),
      threshold: thresholdSchema.default('HIGH'),
      confirm_unknown: z.boolean().default(true),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `unknown confirmation policy kind ${JSON.stringify(
            (issue.input as { kind?: unknown } | undefined)?.kind ?? null,
          )}; known kinds: ${CONFIRMATION_POLICY_KINDS.join(', ')}`
        : undefined,
  },
);

/** Wire JSON of a confirmation policy (defaults filled in). */
export type ConfirmationPolicyWire = z.output<typeof confirmationPolicyWireSchema>;

/** Wire JSON of a confirmation policy as a client may write it (defaults may be left out). */
export type ConfirmationPolicyInputWire = z.input<typeof confirmationPolicyWireSchema>;

/** Wire shape of `POST /api/conversations/{id}/confirmation_policy` (OpenHands). */
export const setConfirmationPolicyRequestWireSchema = z.object({
  policy: confirmationPolicyWireSchema,
});

/** Wire JSON of a set-confirmation-policy request. */
export type SetConfirmationPolicyRequestWire = z.infer<
  typeof setConfirmationPolicyRequestWireSchema
>;

/** Longest rejection reason a confirmation response may give (characters). */
export const MAX_REJECTION_REASON_CHARS = 4096;

/** The reason of a rejection that gives none (OpenHands' default). */
export const DEFAULT_REJECTION_REASON = 'User rejected the action.';

/**
 * Wire shape of `POST /api/conversations/{id}/events/respond_to_confirmation` (OpenHands'
 * `ConfirmationResponseRequest`): accept the actions waiting for confirmation (they run), or
 * reject them with a `reason` (at most {@link MAX_REJECTION_REASON_CHARS} characters).
 */
export const confirmationResponseRequestWireSchema = z.object({
  accept: z.boolean(),
  reason: z.string().max(MAX_REJECTION_REASON_CHARS).default(DEFAULT_REJECTION_REASON),
});

/** Wire JSON of a confirmation response. */
export type ConfirmationResponseRequestWire = z.infer<typeof confirmationResponseRequestWireSchema>;

/**
 * Wire shape of OpenHands' `UserRejectObservation`: the answer to an action the user rejected in
 * confirmation mode (`rejection_source: "user"`); the action never ran. The model is told
 * `Action rejected: <rejection_reason>` as the call's result.
 */
export const userRejectObservationWireSchema = z.looseObject({
  kind: z.literal('UserRejectObservation'),
  ...conversationEventBaseShape('environment'),
  action_id: z.string().min(1),
  tool_name: z.string().min(1),
  tool_call_id: z.string().min(1),
  rejection_reason: z.string().default('User rejected the action'),
  rejection_source: z.enum(['user', 'hook']).default('user'),
});

/** Wire JSON of a user-reject observation. */
export type UserRejectObservationWire = z.infer<typeof userRejectObservationWireSchema>;
