import { loadWireSchemas } from './load-wire-schemas.js';

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
 * At most 2 000 characters. Async because it loads the envelope's schema (see
 * {@link loadWireSchemas}): only error paths pay for zod.
 */
export async function errorDetail(reply: ErrorReplyBody): Promise<string> {
  const { errorEnvelopeSchema } = await loadWireSchemas();
  const envelope = errorEnvelopeSchema.safeParse(reply.json);
  if (!envelope.success) return rawDetail(reply.text);
  const { detail, exception } = envelope.data;
  const text =
    typeof detail === 'string'
      ? detail
      : Array.isArray(detail)
        ? detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ')
        : JSON.stringify(detail);
  return truncateDetail(exception && exception !== text ? `${text}: ${exception}` : text);
}

/** The detail of a body that is not an error envelope: `text`, truncated, or `(empty body)`. */
export function rawDetail(text: string): string {
  return truncateDetail(text) || '(empty body)';
}

/** `text`, cut to 2 000 characters (with `…`) when longer. */
export function truncateDetail(text: string): string {
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}
