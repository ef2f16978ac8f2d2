import { invalidArgument } from '@agent-workspace/core';
import type { AgentServerClient } from '@agent-workspace/core/internal';
import { secretsMapWireSchema } from '@agent-workspace/protocol';
import type { SecretsUpdate } from '../secrets/secret-source.js';
import { expectOk } from './remote-conversation-http.js';

/**
 * Sends `secrets` to `POST path` (OpenHands' `UpdateSecretsRequest`), checked here first so a
 * bad name or source fails with `INVALID_ARGUMENT` naming the field before anything is sent.
 */
export async function postConversationSecrets(
  client: AgentServerClient,
  path: string,
  secrets: SecretsUpdate,
  signal: AbortSignal,
): Promise<void> {
  const parsed = secretsMapWireSchema.safeParse(secrets);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ['secrets', ...issue.path.map(String)].join('.');
    throw invalidArgument(field, `is invalid: ${issue.message}`);
  }
  await expectOk(client, { method: 'POST', path, json: { secrets: parsed.data }, signal });
}
