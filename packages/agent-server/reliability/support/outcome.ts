import { type Answer, type CallOptions, call } from './http.js';

/** How a request under load ended. */
export type Outcome =
  | { kind: 'answer'; answer: Answer }
  /** The connection was refused, reset or closed without an answer (a clean refusal). */
  | { kind: 'refused'; code: string }
  /** No answer within the bound, or a client-side failure: always a violation. */
  | { kind: 'failed'; error: string };

/** Error codes of a connection the server refused, reset or closed without answering. */
const REFUSALS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Makes a request and classifies how it ended (never throws). */
export async function attempt(url: string, options: CallOptions = {}): Promise<Outcome> {
  try {
    return { kind: 'answer', answer: await call(url, options) };
  } catch (error) {
    const code = errorCode(error);
    if (code !== undefined && REFUSALS.has(code)) return { kind: 'refused', code };
    return { kind: 'failed', error: `${code ?? ''} ${(error as Error).message}`.trim() };
  }
}

/** The most telling error code of an error and its causes. */
function errorCode(error: unknown): string | undefined {
  let current = error as { code?: unknown; cause?: unknown } | undefined;
  let found: string | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string') {
      if (REFUSALS.has(current.code)) return current.code;
      found ??= current.code;
    }
    current = current.cause as typeof current;
  }
  return found;
}

/** A short description of an outcome for failure messages. */
export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind === 'answer') {
    return `${outcome.answer.status} ${outcome.answer.text.slice(0, 200)}`;
  }
  return outcome.kind === 'refused' ? `connection refused (${outcome.code})` : outcome.error;
}
