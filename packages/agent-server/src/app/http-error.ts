/**
 * An error a route throws to answer with `status` and `{"detail": detail}`, the OpenHands error
 * envelope.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly detail: unknown;

  constructor(statusCode: number, detail: unknown) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.detail = detail;
  }
}
