import type { ErrorEnvelopeWire } from '../models/error-envelope.js';

/** The body of a 4xx error: `{"detail": <message or object>}`, e.g. `{"detail":"Unauthorized"}`. */
export function httpErrorBody(detail: string | Record<string, unknown>): ErrorEnvelopeWire {
  return { detail };
}
