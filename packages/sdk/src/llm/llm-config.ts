import { z } from 'zod';
import { LLMError } from './llm-error.js';

/** Largest `timeout`, in seconds (one hour). */
export const MAX_LLM_TIMEOUT_SECONDS = 3600;
/** Largest `num_retries`. */
export const MAX_LLM_RETRIES = 20;
/** Largest `retry_min_wait` / `retry_max_wait`, in seconds (ten minutes). */
export const MAX_LLM_RETRY_WAIT_SECONDS = 600;

/**
 * The JSON form of an `LLM`, with OpenHands' snake_case field names, so an agent's model
 * travels to an agent-server. `null` means absent (OpenHands writes `null` for unset fields),
 * `kind` may be missing, and fields we do not know are ignored, so an OpenHands LLM config is
 * accepted. Times are in seconds, prices in US dollars per token.
 */
export const llmConfigSchema = z.object({
  kind: z.literal('LLM').optional(),
  /** `provider/model`, LiteLLM-style: `openai/gpt-4o`, `anthropic/claude-sonnet-4-5`, ... */
  model: z.string().min(1),
  base_url: z.url({ protocol: /^https?$/ }).nullish(),
  api_key: z.string().min(1).nullish(),
  /** Timeout of one request to the provider, in seconds. */
  timeout: z.number().positive().max(MAX_LLM_TIMEOUT_SECONDS).nullish(),
  num_retries: z.number().int().min(0).max(MAX_LLM_RETRIES).nullish(),
  retry_min_wait: z.number().min(0).max(MAX_LLM_RETRY_WAIT_SECONDS).nullish(),
  retry_max_wait: z.number().min(0).max(MAX_LLM_RETRY_WAIT_SECONDS).nullish(),
  input_cost_per_token: z.number().min(0).nullish(),
  output_cost_per_token: z.number().min(0).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  /** Who the usage is accounted to (OpenHands' `usage_id`, e.g. `agent`, `condenser`). */
  usage_id: z.string().min(1).nullish(),
  /** Stream answers token by token (OpenHands' `stream`). */
  stream: z.boolean().nullish(),
});

/** What {@link llmConfigSchema} accepts. */
export type LLMConfigInput = z.input<typeof llmConfigSchema>;

/** The JSON form of an `LLM` as `toConfig()` writes it: set fields only, never `null`. */
export interface LLMConfig {
  kind: 'LLM';
  model: string;
  base_url?: string | undefined;
  /** Only with `toConfig({ includeApiKey: true })`. */
  api_key?: string | undefined;
  timeout?: number | undefined;
  num_retries?: number | undefined;
  retry_min_wait?: number | undefined;
  retry_max_wait?: number | undefined;
  input_cost_per_token?: number | undefined;
  output_cost_per_token?: number | undefined;
  temperature?: number | undefined;
  max_output_tokens?: number | undefined;
  usage_id?: string | undefined;
  stream?: boolean | undefined;
}

/**
 * Validates `json` as an LLM config. Failures are `INVALID_CONFIG` `LLMError`s naming every
 * bad field (never its value: it may be a key).
 */
export function parseLLMConfig(json: unknown): z.output<typeof llmConfigSchema> {
  const parsed = llmConfigSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw configError('LLM config', parsed.error.issues);
}

/** An `INVALID_CONFIG` error naming the fields of `issues`. */
export function configError(subject: string, issues: readonly z.core.$ZodIssue[]): LLMError {
  const fields = issues.map((issue) => issue.path.join('.') || '(root)');
  const described = issues.map((issue, index) => `${fields[index]}: ${issue.message}`);
  return new LLMError({
    code: 'INVALID_CONFIG',
    message: `invalid ${subject}: ${described.join('; ')}`,
    details: { field: fields[0], fields },
  });
}
