import { WorkspaceError, type WorkspaceErrorCode } from '@agent-workspace/core';

const llmMarker = Symbol.for('agent-workspace.llm-error');

/**
 * Stable codes of {@link LLMError}: the `LLM_*` codes of `WorkspaceErrorCode` (documented with
 * the wire in `@agent-workspace/protocol`), plus three generic ones with their project-wide
 * meaning — `ABORTED` (the caller's signal fired), `INVALID_CONFIG` (options or config JSON
 * failed validation; the message names the field) and `INVALID_ARGUMENT` (a bad request, e.g.
 * a `tool` message without `toolCallId`).
 */
export type LLMErrorCode =
  | Extract<WorkspaceErrorCode, `LLM_${string}`>
  | 'ABORTED'
  | 'INVALID_CONFIG'
  | 'INVALID_ARGUMENT';

/** Options of {@link LLMError}. */
export interface LLMErrorOptions {
  code: LLMErrorCode;
  /** Never contains an API key: messages from a provider are redacted before they get here. */
  message: string;
  cause?: unknown;
  /** Structured facts: `model`, `status`, `attempts`, `field`, `retryAfterMs`, ... */
  details?: Record<string, unknown> | undefined;
}

/**
 * Every failure of `LLM`: a `WorkspaceError` (one error base class across the project, so an
 * agent loop branches on `code` whether a tool or the model failed) narrowed to
 * {@link LLMErrorCode}.
 */
export class LLMError extends WorkspaceError {
  readonly [llmMarker] = true;
  declare readonly code: LLMErrorCode;

  constructor({ code, message, cause, details }: LLMErrorOptions) {
    super({ code, message, cause, details });
    this.name = 'LLMError';
  }

  /** True when `error` is an `LLMError` from any copy of this package; optionally of `code`. */
  static override isInstance(error: unknown, code?: LLMErrorCode): error is LLMError {
    if (!WorkspaceError.isInstance(error, code)) return false;
    return (error as unknown as Record<symbol, unknown>)[llmMarker] === true;
  }
}
