import type { LLMMessage } from './llm-message.js';
import type { StreamDeltaListener } from './stream-completion.js';

/** A tool as a model sees it: its name, what it does, and its arguments' JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** What {@link LanguageModel.complete} is asked. */
export interface CompletionRequest {
  /** The transcript, the system prompt first. */
  messages: readonly LLMMessage[];
  tools: readonly ToolSpec[];
  signal?: AbortSignal | undefined;
  /**
   * Told each piece of the answer as it streams in, when the model streams (an `LLM` with
   * `stream: true`, a `ScriptedLLM` with `stream`); the completion still carries the whole
   * answer.
   */
  onStreamDelta?: StreamDeltaListener | undefined;
}

/** Tokens one completion used (OpenHands' `TokenUsage` counts; absent means 0). */
export interface TokenUsage {
  /** Prompt tokens, cached ones included. */
  inputTokens: number;
  /** Completion tokens, reasoning ones included. */
  outputTokens: number;
  /** Prompt tokens read from the provider's cache. */
  cacheReadTokens?: number | undefined;
  /** Prompt tokens written to the provider's cache. */
  cacheWriteTokens?: number | undefined;
  /** Completion tokens spent on reasoning. */
  reasoningTokens?: number | undefined;
}

/** One answer of a model. */
export interface Completion {
  /** Id of the response (the provider's, or a generated one). */
  id: string;
  /** The assistant message: text and/or tool calls. */
  message: LLMMessage;
  usage: TokenUsage;
  /** Cost in US dollars when the model's prices are known. */
  costUsd?: number | undefined;
}

/**
 * A model the agent loop can call: the real `LLM` or the deterministic `ScriptedLLM`. Its
 * configuration is plain JSON, so an agent can travel to an agent-server; `toConfig()` never
 * includes an API key in clear unless asked for the hop that needs it.
 */
export interface LanguageModel {
  /** Model id, e.g. `openai/gpt-4o` or `scripted`. */
  readonly model: string;
  /** Asks the model for its next message. Failures are `LLMError`s with a stable code. */
  complete(request: CompletionRequest): Promise<Completion>;
}
