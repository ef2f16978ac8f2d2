import type { ErrorEnvelopeWire } from '@agent-workspace/protocol';

/**
 * An error a route throws to answer with `status` and `{"detail": detail}`, the OpenHands error
 * envelope.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly detail: ErrorEnvelopeWire['detail'];

  constructor(statusCode: number, detail: ErrorEnvelopeWire['detail']) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.detail = detail;
  }
}
