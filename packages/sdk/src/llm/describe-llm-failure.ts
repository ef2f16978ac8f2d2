import {
  APICallError,
  EmptyResponseBodyError,
  InvalidArgumentError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoContentGeneratedError,
  TypeValidationError,
} from 'ai';
import type { LLMErrorCode } from './llm-error.js';
import { parseRetryAfter } from './parse-retry-after.js';

/** How one failed attempt is reported and whether it is worth another. */
export interface LLMFailure {
  code: LLMErrorCode;
  retryable: boolean;
  /** What happened, without the model's name; may quote the provider (redact before use). */
  summary: string;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number | undefined;
  /** The provider's `Retry-After`, in ms. */
  retryAfterMs?: number | undefined;
  /** The provider's own error code (`context_length_exceeded`, ...). */
  providerCode?: string | undefined;
  /** Kept only where it cannot hold a key or the provider's words (network errors). */
  cause?: unknown;
}

const MAX_QUOTE = 500;

// LiteLLM's tests for a context window overflow, which providers report as a plain 400.
const CONTEXT_WINDOW =
  /context[_ ]length|context window|maximum context|prompt is too long|too many tokens|input is too long/i;

/**
 * Reads an AI SDK or fetch failure of one attempt (aborts and timeouts are told apart by the
 * caller, which knows its signals). `undefined` for anything else: a bug, left to surface.
 */
export function describeLLMFailure(error: unknown): LLMFailure | undefined {
  if (APICallError.isInstance(error)) return describeApiCallError(error);
  if (
    InvalidResponseDataError.isInstance(error) ||
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error)
  ) {
    return {
      code: 'LLM_BAD_RESPONSE',
      retryable: false,
      summary: `the provider's answer is not a completion: ${firstLine(error.message)}`,
    };
  }
  if (LoadAPIKeyError.isInstance(error)) {
    return { code: 'LLM_AUTHENTICATION', retryable: false, summary: 'no API key is configured' };
  }
  if (InvalidPromptError.isInstance(error) || InvalidArgumentError.isInstance(error)) {
    return { code: 'INVALID_ARGUMENT', retryable: false, summary: firstLine(error.message) };
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    return networkFailure(error.cause ?? error);
  }
  return undefined;
}

function describeApiCallError(error: APICallError): LLMFailure {
  const status = error.statusCode;
  if (status === undefined) return networkFailure(error.cause);
  const quote = firstLine(error.message);
  const providerCode = errorCodeOf(error.data);
  const base = { status, providerCode };
  if (status >= 200 && status < 300) {
    const detail = error.cause instanceof Error ? firstLine(error.cause.message) : quote;
    return {
      ...base,
      code: 'LLM_BAD_RESPONSE',
      retryable: false,
      summary: `the provider's answer (${status}) is not a chat completion: ${detail}`,
    };
  }
  const retryAfterMs = parseRetryAfter(error.responseHeaders);
  if (status === 401 || status === 403) {
    return {
      ...base,
      code: 'LLM_AUTHENTICATION',
      retryable: false,
      summary: `the provider refused the credentials (${status}): ${quote}`,
    };
  }
  if (status === 429) {
    return {
      ...base,
      retryAfterMs,
      code: 'LLM_RATE_LIMITED',
      retryable: true,
      summary: `rate limited by the provider (429): ${quote}`,
    };
  }
  if (status === 408) {
    return {
      ...base,
      retryAfterMs,
      code: 'LLM_TIMEOUT',
      retryable: true,
      summary: `the provider timed out (408): ${quote}`,
    };
  }
  if (status === 409 || status >= 500) {
    return {
      ...base,
      retryAfterMs,
      code: 'LLM_SERVER_ERROR',
      retryable: true,
      summary: `the provider failed (${status}): ${quote}`,
    };
  }
  if (providerCode === 'context_length_exceeded' || CONTEXT_WINDOW.test(error.message)) {
    return {
      ...base,
      code: 'LLM_CONTEXT_WINDOW_EXCEEDED',
      retryable: false,
      summary: `the transcript exceeds the model's context window (${status}): ${quote}`,
    };
  }
  return {
    ...base,
    code: 'LLM_BAD_REQUEST',
    retryable: false,
    summary: `the provider refused the request (${status}): ${quote}`,
  };
}

function networkFailure(cause: unknown): LLMFailure {
  const reason = cause instanceof Error ? firstLine(cause.message) : 'network error';
  return {
    code: 'LLM_CONNECTION',
    retryable: true,
    summary: `cannot reach the provider: ${reason}`,
    cause,
  };
}

/** `error.code` of an OpenAI or Anthropic error envelope (Anthropic calls it `type`). */
function errorCodeOf(data: unknown): string | undefined {
  const inner = (data as { error?: { code?: unknown; type?: unknown } } | undefined)?.error;
  const code = inner?.code ?? inner?.type;
  return typeof code === 'string' ? code : undefined;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line;
}
