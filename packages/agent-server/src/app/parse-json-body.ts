import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-error.js';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Replaces Fastify's JSON body parser: the body must be valid UTF-8 (invalid bytes are refused,
 * not turned into U+FFFD and run) and nested at most {@link MAX_JSON_DEPTH} deep (a deeper body
 * could overflow the stack of whatever echoes it); an empty body is no body, as in FastAPI (the
 * OpenHands client sends `DELETE /api/bash/bash_events` with that content type and nothing else).
 * Failures are 422 `json_invalid`, like malformed JSON.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Parses a JSON body under the rules of {@link registerJsonBodyParser}. */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw jsonInvalid('the body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  if (depthOf(text) > MAX_JSON_DEPTH) {
    throw jsonInvalid(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw jsonInvalid((error as Error).message);
  }
}

/**
 * The 422 of a body that is not acceptable JSON, in FastAPI's shape; `reason` passes through
 * {@link jsonErrorReason}, so no part of the body is quoted.
 */
export function jsonInvalid(reason: string): HttpError {
  return new HttpError(422, [
    {
      type: 'json_invalid',
      loc: ['body'],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: jsonErrorReason(reason) },
    },
  ]);
}

/**
 * A JSON parser's error message safe to send back: one that quotes the text around the failure
 * (V8's `Unexpected token 'x', "…" is not valid JSON`, which may hold a secret or key) becomes
 * `Unexpected token`; others (`… at position N`) are kept.
 */
export function jsonErrorReason(message: string): string {
  return /is not valid JSON|Unexpected token/.test(message) ? 'Unexpected token' : message;
}

/** Deepest nesting of `[` and `{` outside strings. */
function depthOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}
