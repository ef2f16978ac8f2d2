import { errorEnvelopeSchema } from '@agent-workspace/protocol';

/** Longest error body kept in a message. */
const MAX_DETAIL_CHARS = 2_000;

/** The body of an error reply, read in full. */
export interface ErrorReplyBody {
  /** The parsed JSON body, or `undefined` when it is not JSON. */
  json: unknown;
  /** The raw body text. */
  text: string;
}

/**
 * The human detail of an error reply: the envelope's `detail` (validation issues as
 * `loc: msg`), plus `exception` when present; the raw body when it is not an envelope.
 * At most 2 000 characters.
 */
export function errorDetail(reply: ErrorReplyBody): string {
  const envelope = errorEnvelopeSchema.safeParse(reply.json);
  if (!envelope.success) return truncateDetail(reply.text) || '(empty body)';
  const { detail, exception } = envelope.data;
  const text =
    typeof detail === 'string'
      ? detail
      : Array.isArray(detail)
        ? detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ')
        : JSON.stringify(detail);
  return truncateDetail(exception && exception !== text ? `${text}: ${exception}` : text);
}

/** `text`, cut to 2 000 characters (with `…`) when longer. */
export function truncateDetail(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}
