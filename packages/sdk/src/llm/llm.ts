import { setTimeout as sleep } from 'node:timers/promises';
import { type InspectOptions, inspect } from 'node:util';
import { anySignal } from '@agent-workspace/core/internal';
import type { ModelMessage, ToolSet } from 'ai';
import { describeLLMFailure, type LLMFailure } from './describe-llm-failure.js';
import { generateCompletion } from './generate-completion.js';
import type { Completion, CompletionRequest, LanguageModel } from './language-model.js';
import { type LLMConfig, parseLLMConfig } from './llm-config.js';
import { LLMError } from './llm-error.js';
import {
  type CheckedLLMOptions,
  checkLLMOptions,
  type LLMFromConfigOptions,
  type LLMMetrics,
  type LLMOptions,
  type LLMToConfigOptions,
} from './llm-options.js';
import {
  createProviderModel,
  type LLMRoute,
  type ProviderModel,
  routeLLMModel,
} from './llm-route.js';
import {
  type StreamDeltaListener,
  streamCompletion,
  withRawToolArguments,
} from './stream-completion.js';
import { toModelMessages } from './to-model-messages.js';
import { toToolSet } from './to-tool-set.js';

/** Defaults of the options (OpenHands' for the retries). */
export const LLM_DEFAULTS = {
  timeoutMs: 300_000,
  maxRetries: 5,
  retryMinWaitMs: 8_000,
  retryMaxWaitMs: 64_000,
  usageId: 'default',
} as const;

const REDACTED = '[REDACTED]';

/**
 * A model behind a provider's API, through the Vercel AI SDK: `openai/<model>` (and any prefix
 * with a `baseUrl`) speaks OpenAI chat completions, `anthropic/<model>` the Anthropic API.
 * One request per attempt (streamed with `stream: true` when the request has an
 * `onStreamDelta`, each text and reasoning delta told to it as it arrives; tools given as JSON
 * Schema and never executed here),
 * a timeout per attempt, retries with exponential backoff on 408/409/429/5xx, network errors
 * and timeouts (honouring `Retry-After`), usage and cost accounting in {@link LLM.metrics}.
 * Every failure is an {@link LLMError}. The API key never appears in errors, `toString()`,
 * `util.inspect` or `JSON.stringify`; only `toConfig({ includeApiKey: true })` gives it.
 *
 * @example
 * ```ts
 * const llm = new LLM({ model: 'openai/gpt-4o-mini' }); // key from LLM_API_KEY or OPENAI_API_KEY
 * const { message } = await llm.complete({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
 * ```
 */
export class LLM implements LanguageModel {
  /** The `provider/model` id. */
  readonly model: string;
  /** Who the usage is accounted to. */
  readonly usageId: string;
  readonly #options: CheckedLLMOptions;
  readonly #route: LLMRoute;
  readonly #providerModel: ProviderModel;
  readonly #onRetry: LLMOptions['onRetry'];
  readonly #metrics: LLMMetrics = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

  /** Builds an LLM from options, the environment filling in what they leave unset. */
  constructor(options: LLMOptions = {}) {
    const { env: givenEnv, onRetry, ...rest } = options;
    const env = givenEnv ?? process.env;
    const fromEnv = (name: string) => env[name] || undefined;
    const model = rest.model ?? fromEnv('LLM_MODEL');
    const baseUrl = rest.baseUrl ?? fromEnv('LLM_BASE_URL');
    const unchecked = withoutUndefined({ ...rest, model, baseUrl });
    const route = routeLLMModel(checkLLMOptions(unchecked).model, baseUrl);
    const apiKey =
      rest.apiKey ??
      fromEnv('LLM_API_KEY') ??
      (route.apiKeyVariable === undefined ? undefined : fromEnv(route.apiKeyVariable));
    this.#options = checkLLMOptions(withoutUndefined({ ...unchecked, apiKey }));
    this.#route = route;
    this.#providerModel = createProviderModel(route, apiKey);
    this.#onRetry = onRetry;
    this.model = this.#options.model;
    this.usageId = this.#options.usageId ?? LLM_DEFAULTS.usageId;
  }

  /**
   * Builds an LLM from its JSON config (see {@link LLMConfig}). The environment is not read
   * unless `options.env` is given (e.g. an agent-server supplying its own key).
   */
  static fromConfig(config: unknown, options: LLMFromConfigOptions = {}): LLM {
    const parsed = parseLLMConfig(config);
    const seconds = (value: number | null | undefined) =>
      value === null || value === undefined ? undefined : value * 1000;
    const perMillion = (value: number | null | undefined) =>
      value === null || value === undefined ? undefined : value * 1_000_000;
    return new LLM({
      model: parsed.model,
      baseUrl: parsed.base_url ?? undefined,
      apiKey: parsed.api_key ?? undefined,
      timeoutMs: seconds(parsed.timeout),
      maxRetries: parsed.num_retries ?? undefined,
      retryMinWaitMs: seconds(parsed.retry_min_wait),
      retryMaxWaitMs: seconds(parsed.retry_max_wait),
      inputCostPerMillionTokens: perMillion(parsed.input_cost_per_token),
      outputCostPerMillionTokens: perMillion(parsed.output_cost_per_token),
      temperature: parsed.temperature ?? undefined,
      maxOutputTokens: parsed.max_output_tokens ?? undefined,
      usageId: parsed.usage_id ?? undefined,
      stream: parsed.stream ?? undefined,
      env: options.env ?? {},
      onRetry: options.onRetry,
    });
  }

  /** Calls, tokens and cost so far (a copy). */
  get metrics(): LLMMetrics {
    return { ...this.#metrics };
  }

  /**
   * Asks the model for its next message. Failures are {@link LLMError}s: `ABORTED` when
   * `request.signal` fires (also during a backoff), `LLM_TIMEOUT` when every attempt timed
   * out, the provider's failure after the last retry otherwise.
   */
  async complete(request: CompletionRequest): Promise<Completion> {
    const { signal } = request;
    if (signal?.aborted) throw this.#aborted(signal);
    const messages = toModelMessages(request.messages, this.#route.api);
    const tools = toToolSet(request.tools);
    const maxRetries = this.#options.maxRetries ?? LLM_DEFAULTS.maxRetries;
    for (let attempt = 1; ; attempt++) {
      let failure: LLMFailure;
      try {
        return this.#account(await this.#attempt(messages, tools, signal, request.onStreamDelta));
      } catch (error) {
        if (LLMError.isInstance(error)) throw error;
        failure = this.#describe(error);
      }
      const retry = failure.retryable && attempt <= maxRetries;
      const error = this.#error(failure, attempt, retry);
      if (!retry) throw error;
      const delayMs = this.#delayBeforeRetry(attempt, failure.retryAfterMs);
      this.#onRetry?.({ retry: attempt, delayMs, error });
      try {
        await sleep(delayMs, undefined, signal === undefined ? {} : { signal });
      } catch {
        throw this.#aborted(signal!);
      }
    }
  }

  /**
   * The JSON config, with OpenHands' field names: only the options that were set (from
   * options, config or environment). The API key only with `includeApiKey: true`.
   */
  toConfig({ includeApiKey = false }: LLMToConfigOptions = {}): LLMConfig {
    const options = this.#options;
    const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
    const perToken = (price: number | undefined) =>
      price === undefined ? undefined : price / 1_000_000;
    return withoutUndefined({
      kind: 'LLM' as const,
      model: options.model,
      base_url: options.baseUrl,
      api_key: includeApiKey ? options.apiKey : undefined,
      timeout: seconds(options.timeoutMs),
      num_retries: options.maxRetries,
      retry_min_wait: seconds(options.retryMinWaitMs),
      retry_max_wait: seconds(options.retryMaxWaitMs),
      input_cost_per_token: perToken(options.inputCostPerMillionTokens),
      output_cost_per_token: perToken(options.outputCostPerMillionTokens),
      temperature: options.temperature,
      max_output_tokens: options.maxOutputTokens,
      usage_id: options.usageId,
      stream: options.stream,
    });
  }

  /** `JSON.stringify(llm)`: the config without the API key. */
  toJSON(): LLMConfig {
    return this.toConfig();
  }

  /** `LLM(openai/gpt-4o)`. */
  toString(): string {
    return `LLM(${this.model})`;
  }

  /** `util.inspect` / `console.log`: the config, the API key redacted. */
  [inspect.custom](_depth: number, options: InspectOptions): string {
    const shown = {
      ...this.toConfig(),
      ...(this.#options.apiKey === undefined ? {} : { api_key: REDACTED }),
    };
    return `LLM ${inspect(shown, { ...options, customInspect: false })}`;
  }

  /** One request, with its own timeout; throws what the AI SDK threw, or an `LLMError`. */
  async #attempt(
    messages: ModelMessage[],
    tools: ToolSet | undefined,
    signal: AbortSignal | undefined,
    onStreamDelta: StreamDeltaListener | undefined,
  ): Promise<Completion> {
    if (this.#route.api === 'anthropic' && this.#options.apiKey === undefined) {
      throw this.#error(
        {
          code: 'LLM_AUTHENTICATION',
          retryable: false,
          summary: 'no API key: set apiKey, LLM_API_KEY or ANTHROPIC_API_KEY',
        },
        1,
        false,
      );
    }
    const timeoutMs = this.#options.timeoutMs ?? LLM_DEFAULTS.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const abortSignal = anySignal([signal, timeout.signal]);
    // The provider's raw argument text of each tool call, before the AI SDK parses it.
    const rawArguments = new Map<string, string>();
    const model = withRawToolArguments(this.#providerModel, rawArguments);
    const { temperature, maxOutputTokens } = this.#options;
    const request = { model, messages, tools, abortSignal, temperature, maxOutputTokens };
    try {
      // Streams only for a listener, as OpenHands' `stream` needs its `on_token`.
      const result =
        this.#options.stream && onStreamDelta !== undefined
          ? await streamCompletion({ ...request, rawArguments, onDelta: onStreamDelta })
          : await generateCompletion({ ...request, rawArguments });
      return { id: result.responseId, message: result.message, usage: result.usage };
    } catch (error) {
      if (signal?.aborted) throw this.#aborted(signal);
      if (timeout.signal.aborted) {
        throw new TimedOut(`no answer within ${timeoutMs} ms`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  #describe(error: unknown): LLMFailure {
    if (error instanceof TimedOut) {
      return { code: 'LLM_TIMEOUT', retryable: true, summary: error.message };
    }
    const failure = describeLLMFailure(error);
    if (failure === undefined) throw error;
    return failure;
  }

  /** Adds cost and metrics to a completion. */
  #account(completion: Completion): Completion {
    const { inputCostPerMillionTokens: input, outputCostPerMillionTokens: output } = this.#options;
    const { inputTokens, outputTokens } = completion.usage;
    const costUsd =
      input === undefined && output === undefined
        ? undefined
        : (inputTokens * (input ?? 0) + outputTokens * (output ?? 0)) / 1_000_000;
    this.#metrics.calls += 1;
    this.#metrics.inputTokens += inputTokens;
    this.#metrics.outputTokens += outputTokens;
    this.#metrics.costUsd += costUsd ?? 0;
    return costUsd === undefined ? completion : { ...completion, costUsd };
  }

  /** Exponential backoff from `retryMinWaitMs`, or the provider's `Retry-After`; both capped. */
  #delayBeforeRetry(retry: number, retryAfterMs: number | undefined): number {
    const minMs = this.#options.retryMinWaitMs ?? LLM_DEFAULTS.retryMinWaitMs;
    const maxMs = Math.max(minMs, this.#options.retryMaxWaitMs ?? LLM_DEFAULTS.retryMaxWaitMs);
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxMs);
    return Math.min(minMs * 2 ** (retry - 1), maxMs);
  }

  #error(failure: LLMFailure, attempts: number, willRetry: boolean): LLMError {
    const after = attempts > 1 && !willRetry ? ` (after ${attempts} attempts)` : '';
    return new LLMError({
      code: failure.code,
      message: this.#redact(`LLM ${this.model}: ${failure.summary}${after}`),
      cause: failure.cause,
      details: withoutUndefined({
        model: this.model,
        attempts,
        status: failure.status,
        retryAfterMs: failure.retryAfterMs,
        providerCode: failure.providerCode,
      }),
    });
  }

  #aborted(signal: AbortSignal): LLMError {
    return new LLMError({
      code: 'ABORTED',
      message: `LLM ${this.model}: the call was aborted`,
      cause: signal.reason,
      details: { model: this.model },
    });
  }

  /** Removes the API key from text that may quote the provider (some echo the key). */
  #redact(text: string): string {
    const key = this.#options.apiKey;
    return key === undefined ? text : text.split(key).join(REDACTED);
  }
}

/** A per-attempt timeout, told apart from the caller's abort. */
class TimedOut extends Error {}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
