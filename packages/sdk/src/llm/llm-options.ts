import { z } from 'zod';
import {
  configError,
  MAX_LLM_RETRIES,
  MAX_LLM_RETRY_WAIT_SECONDS,
  MAX_LLM_TIMEOUT_SECONDS,
} from './llm-config.js';
import type { LLMError } from './llm-error.js';

/** What {@link LLMOptions.onRetry} is told before each retry. */
export interface LLMRetryEvent {
  /** The retry about to happen: 1 for the second attempt. */
  retry: number;
  /** How long the call waits first: the provider's `Retry-After`, or the backoff's delay. */
  delayMs: number;
  /** The failure of the attempt that is retried (its message is redacted). */
  error: LLMError;
}

/**
 * Options of `LLM`. `model`, `baseUrl` and `apiKey` fall back to the environment
 * (`LLM_MODEL`, `LLM_BASE_URL`, `LLM_API_KEY`; then `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` by
 * provider, as LiteLLM does).
 */
export interface LLMOptions {
  /** `provider/model`: `openai/gpt-4o`, `anthropic/claude-sonnet-4-5`, `vllm/qwen3` + `baseUrl`. */
  model?: string | undefined;
  /** Base URL of the provider's API, e.g. `http://localhost:8000/v1` for an OpenAI-compatible server. */
  baseUrl?: string | undefined;
  /** Never logged, never in an error, `toString()`, `util.inspect` or `JSON.stringify`. */
  apiKey?: string | undefined;
  /** Timeout of one request to the provider (each attempt), in ms. Default 300 000, at most one hour. */
  timeoutMs?: number | undefined;
  /** Retries after a 408/409/429/5xx, a network error or a timeout. Default 5, at most 20. */
  maxRetries?: number | undefined;
  /** First backoff delay, doubled per retry, in ms. Default 8 000. */
  retryMinWaitMs?: number | undefined;
  /** Largest backoff delay, and largest `Retry-After` honoured, in ms. Default 64 000. */
  retryMaxWaitMs?: number | undefined;
  /** Price of a million input tokens in US dollars; with it, completions carry `costUsd`. */
  inputCostPerMillionTokens?: number | undefined;
  /** Price of a million output tokens in US dollars. */
  outputCostPerMillionTokens?: number | undefined;
  /** Sampling temperature (0–2); the provider's default when unset. */
  temperature?: number | undefined;
  /** Largest number of tokens of one answer; the provider's default when unset. */
  maxOutputTokens?: number | undefined;
  /** Who the usage is accounted to (OpenHands' `usage_id`). Default `default`. */
  usageId?: string | undefined;
  /**
   * Stream each answer (OpenHands' `stream`): text and reasoning deltas go to the request's
   * `onStreamDelta` as they arrive. A request without `onStreamDelta` is answered whole (as
   * OpenHands' side questions are). Default false.
   */
  stream?: boolean | undefined;
  /** Environment read for unset options. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Called before each retry (for logs and metrics); not part of the JSON config. */
  onRetry?: ((event: LLMRetryEvent) => void) | undefined;
}

const waitMs = z
  .number()
  .min(0)
  .max(MAX_LLM_RETRY_WAIT_SECONDS * 1000);
const price = z.number().min(0);

/** Checks the options once the environment filled them in; its errors name the option. */
export const llmOptionsSchema = z.object({
  model: z.string({ error: 'is required (or set LLM_MODEL)' }).min(1),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().min(1).optional(),
  timeoutMs: z
    .number()
    .positive()
    .max(MAX_LLM_TIMEOUT_SECONDS * 1000)
    .optional(),
  maxRetries: z.number().int().min(0).max(MAX_LLM_RETRIES).optional(),
  retryMinWaitMs: waitMs.optional(),
  retryMaxWaitMs: waitMs.optional(),
  inputCostPerMillionTokens: price.optional(),
  outputCostPerMillionTokens: price.optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  usageId: z.string().min(1).optional(),
  stream: z.boolean().optional(),
});

/** The options after validation. */
export type CheckedLLMOptions = z.output<typeof llmOptionsSchema>;

/** Validates options (environment already applied); `INVALID_CONFIG` naming the option. */
export function checkLLMOptions(options: Record<string, unknown>): CheckedLLMOptions {
  const parsed = llmOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  throw configError('LLM options', parsed.error.issues);
}

/** What an `LLM` has used since it was made: successful calls and their tokens and cost. */
export interface LLMMetrics {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** In US dollars; 0 when no prices are configured. */
  costUsd: number;
}

/** Options of `LLM.toConfig`. */
export interface LLMToConfigOptions {
  /** Put the API key in clear into the config, for the one hop that needs it. Default false. */
  includeApiKey?: boolean | undefined;
}

/** Options of `LLM.fromConfig`: what JSON cannot carry. */
export type LLMFromConfigOptions = Pick<LLMOptions, 'env' | 'onRetry'>;
