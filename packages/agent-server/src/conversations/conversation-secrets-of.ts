import { SECRET_MASK, secretsMapWireSchema } from '@agent-workspace/protocol';
import type { ConversationSecrets } from '@agent-workspace/sdk';
import type { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ConversationRecord } from './conversation-record.js';

/** A new, empty registry (the SDK is loaded lazily, as everywhere in the server). */
export async function newConversationSecrets(): Promise<ConversationSecrets> {
  const { ConversationSecrets } = await import('@agent-workspace/sdk');
  return new ConversationSecrets();
}

/** The secrets of `record`, made (empty) at first use; the loaded conversation shares them. */
export async function secretsOf(record: ConversationRecord): Promise<ConversationSecrets> {
  record.secrets ??= await newConversationSecrets();
  return record.secrets;
}

/**
 * Checks `input` as the `secrets` of a request body (OpenHands' `UpdateSecretsRequest` forms),
 * normalised. A failure is a 422 whose issues name the field (`loc`) and never carry the value:
 * their `input` is left out.
 * @throws HttpError 422.
 */
export function parseSecretsBody(
  input: unknown,
  field: readonly string[],
): z.infer<typeof secretsMapWireSchema> {
  const parsed = secretsMapWireSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((issue) => ({
    type: issue.code === 'invalid_type' && input === undefined ? 'missing' : 'value_error',
    loc: [
      'body',
      ...field,
      ...issue.path.map((key) => (typeof key === 'number' ? key : String(key))),
    ],
    msg: issue.message,
  }));
  throw new HttpError(422, detail);
}

/**
 * A request body as a 422 may echo it: a top-level `secrets` map (start and update requests)
 * has its values replaced by `SECRET_MASK`, the names kept.
 */
export function withoutSecretValues(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const { secrets } = input as { secrets?: unknown };
  if (typeof secrets !== 'object' || secrets === null) return input;
  const masked = Object.fromEntries(Object.keys(secrets).map((name) => [name, SECRET_MASK]));
  return { ...input, secrets: masked };
}
