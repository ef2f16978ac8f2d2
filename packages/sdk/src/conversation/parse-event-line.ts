import { type ConversationEventWire, conversationEventWireSchema } from '@agent-workspace/protocol';

/** The event of a line, checked against the wire schema; `undefined` when it is not one. */
export function strictEvent(text: string | undefined): ConversationEventWire | undefined {
  const parsed = conversationEventWireSchema.safeParse(parseJson(text));
  return parsed.success ? parsed.data : undefined;
}

/** The event of a line this store wrote (checked for its kind and id only, for speed). */
export function looseEvent(json: unknown): ConversationEventWire | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { kind, id } = json as { kind?: unknown; id?: unknown };
  return typeof kind === 'string' && typeof id === 'string'
    ? (json as ConversationEventWire)
    : undefined;
}

/** `text` parsed as JSON; `undefined` when it is not JSON (or there is none). */
export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
