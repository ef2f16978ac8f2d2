import type { ConversationInfoWire } from '@agent-workspace/protocol';
import type { ConfirmationSettings } from '@agent-workspace/sdk';

/**
 * The `confirmation_policy` and `security_analyzer` fields of a conversation's info (OpenHands'
 * `ConversationInfo`): `NeverConfirm` and `null` when nothing is known.
 */
export function confirmationInfo(
  settings: ConfirmationSettings | undefined,
): Pick<ConversationInfoWire, 'confirmation_policy' | 'security_analyzer'> {
  return {
    confirmation_policy: settings?.policy ?? { kind: 'NeverConfirm' },
    security_analyzer: settings?.securityAnalyzer ?? null,
  };
}
