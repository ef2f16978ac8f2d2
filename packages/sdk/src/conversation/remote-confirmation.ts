import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  DEFAULT_REJECTION_REASON,
  MAX_REJECTION_REASON_CHARS,
  securityAnalyzerWireSchema,
} from '@agent-workspace/protocol';
import {
  type ConfirmationPolicy,
  type ConfirmationPolicyInput,
  parseConfirmationPolicy,
} from '../security/confirmation-policy.js';
import type { ConfirmationResponse } from './confirmation-control.js';
import type { RemoteControlTarget } from './remote-conversation-control.js';
import { expectOk } from './remote-conversation-http.js';

/**
 * The `confirmation_policy` and `security_analyzer` fields of a start request, from
 * `RemoteConversation.create`'s options (only those given), checked here.
 * @throws WorkspaceError `INVALID_ARGUMENT` naming the bad option.
 */
export function startConfirmationFields(options: {
  confirmationPolicy?: ConfirmationPolicyInput | undefined;
  securityAnalyzer?: { kind: string } | null | undefined;
}): { confirmation_policy?: ConfirmationPolicy; security_analyzer?: { kind: string } | null } {
  const fields: {
    confirmation_policy?: ConfirmationPolicy;
    security_analyzer?: { kind: string } | null;
  } = {};
  if (options.confirmationPolicy !== undefined) {
    fields.confirmation_policy = parseConfirmationPolicy(options.confirmationPolicy);
  }
  if (options.securityAnalyzer !== undefined) {
    fields.security_analyzer = checkedAnalyzer(options.securityAnalyzer);
  }
  return fields;
}

/** `analyzer` as the wire takes it. @throws WorkspaceError `INVALID_ARGUMENT`. */
function checkedAnalyzer(analyzer: unknown): { kind: string } | null {
  const parsed = securityAnalyzerWireSchema.nullable().safeParse(analyzer);
  if (!parsed.success) throw invalidArgument('securityAnalyzer', parsed.error.issues[0]!.message);
  return parsed.data;
}

/**
 * `POST …/confirmation_policy` with `{ policy }`; the policy is checked here first
 * (`INVALID_ARGUMENT` naming the bad part, as `LocalConversation.setConfirmationPolicy`).
 */
export async function postConfirmationPolicy(
  target: RemoteControlTarget,
  policy: ConfirmationPolicyInput,
): Promise<void> {
  await expectOk(target.client, {
    method: 'POST',
    path: conversationPath(
      AGENT_SERVER_ROUTES.conversationConfirmationPolicy,
      target.conversationId,
    ),
    json: { policy: parseConfirmationPolicy(policy, 'policy') },
    signal: target.signal,
  });
}

/**
 * `POST …/security_analyzer` with `{ security_analyzer }`: `{ kind: 'PatternSecurityAnalyzer' }`
 * or `null`. An analyzer in code (an object, a function) cannot cross to a server:
 * `INVALID_ARGUMENT`.
 */
export async function postSecurityAnalyzer(
  target: RemoteControlTarget,
  analyzer: { kind: string } | null,
): Promise<void> {
  const checked = checkedAnalyzer(analyzer);
  await expectOk(target.client, {
    method: 'POST',
    path: conversationPath(AGENT_SERVER_ROUTES.conversationSecurityAnalyzer, target.conversationId),
    json: { security_analyzer: checked },
    signal: target.signal,
  });
}

/**
 * `POST …/events/respond_to_confirmation` with `{ accept, reason }`. The server's 409 (nothing
 * waits) becomes `NOT_FOUND`, as `LocalConversation.respondToConfirmation` throws it.
 */
export async function postConfirmationResponse(
  target: RemoteControlTarget,
  response: ConfirmationResponse,
): Promise<void> {
  const reason = response.reason ?? DEFAULT_REJECTION_REASON;
  if (typeof reason !== 'string' || reason.length > MAX_REJECTION_REASON_CHARS) {
    throw invalidArgument(
      'reason',
      `must be a string of at most ${MAX_REJECTION_REASON_CHARS} characters`,
    );
  }
  try {
    await expectOk(target.client, {
      method: 'POST',
      path: conversationPath(AGENT_SERVER_ROUTES.respondToConfirmation, target.conversationId),
      json: { accept: response.accept === true, reason },
      signal: target.signal,
    });
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'ALREADY_EXISTS')) throw error;
    throw new WorkspaceError({
      code: 'NOT_FOUND',
      message: 'no actions are waiting for confirmation',
      details: { ...error.details, conversationId: target.conversationId },
    });
  }
}
