import type { z } from 'zod';
import type { ConversationHttp } from './remote-conversation-http.js';

/** `json` checked against `schema`, or the `PROTOCOL_ERROR` naming the first bad field. */
export function parseReply<T>(
  http: ConversationHttp,
  operation: string,
  schema: z.ZodType<T>,
  json: unknown,
): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw http.malformed(operation, `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}
