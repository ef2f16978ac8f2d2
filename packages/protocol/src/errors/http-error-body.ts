import type { ErrorEnvelopeWire } from '../models/error-envelope.js';

/**
 * The body of a 4xx error: `{"detail": <message, object or validation issues>}`, e.g.
 * `{"detail":"Unauthorized"}`.
 */
export function httpErrorBody(detail: ErrorEnvelopeWire['detail']): ErrorEnvelopeWire {
  return { detail };
}
