import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { wrapLanguageModel } from 'ai';
import { LLMError } from './llm-error.js';

/** An AI SDK model, as the provider packages make them. */
export type ProviderModel = Parameters<typeof wrapLanguageModel>[0]['model'];

/** Which API a model id speaks. */
export type LLMApi = 'openai-compatible' | 'anthropic';

/** Where a `provider/model` id goes. */
export interface LLMRoute {
  api: LLMApi;
  /** The id's prefix: `openai`, `anthropic`, `vllm`, ... */
  provider: string;
  /** The model's name at the provider: the id without its prefix. */
  modelName: string;
  /** The given base URL; `undefined` means the provider's own (`DEFAULT_BASE_URLS`). */
  baseUrl: string | undefined;
  /** The provider's own API key variable (LiteLLM's), read when no key is given. */
  apiKeyVariable: string | undefined;
}

/** Base URLs of the providers we know, used when none is given. */
export const DEFAULT_BASE_URLS: Readonly<Record<'openai' | 'anthropic', string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/**
 * Routes a LiteLLM-style id: `openai/<model>` and any other prefix with a base URL speak
 * OpenAI chat completions, `anthropic/<model>` the Anthropic messages API. A bare name works
 * with a base URL (an OpenAI-compatible server). The name keeps any further slashes
 * (`openai/meta-llama/Llama-3-8B` asks for `meta-llama/Llama-3-8B`).
 */
export function routeLLMModel(model: string, baseUrl: string | undefined): LLMRoute {
  const slash = model.indexOf('/');
  const provider = slash > 0 ? model.slice(0, slash) : '';
  const modelName = slash > 0 ? model.slice(slash + 1) : model;
  if (modelName === '') throw invalidModel(model, 'has no model name after the provider');
  if (provider === 'anthropic') {
    return { api: 'anthropic', provider, modelName, baseUrl, apiKeyVariable: 'ANTHROPIC_API_KEY' };
  }
  if (provider === 'openai') {
    return {
      api: 'openai-compatible',
      provider,
      modelName,
      baseUrl,
      apiKeyVariable: 'OPENAI_API_KEY',
    };
  }
  if (baseUrl === undefined) {
    throw invalidModel(
      model,
      provider === ''
        ? 'needs a provider prefix (openai/..., anthropic/...) or a baseUrl'
        : `names provider "${provider}", which needs a baseUrl (OpenAI-compatible)`,
    );
  }
  return {
    api: 'openai-compatible',
    provider: provider || 'openai-compatible',
    modelName,
    baseUrl,
    apiKeyVariable: undefined,
  };
}

/** Makes the AI SDK model for a route. */
export function createProviderModel(route: LLMRoute, apiKey: string | undefined): ProviderModel {
  if (route.api === 'anthropic') {
    const anthropic = createAnthropic({
      baseURL: route.baseUrl ?? DEFAULT_BASE_URLS.anthropic,
      // Checked before each call: the SDK would otherwise read ANTHROPIC_API_KEY itself.
      apiKey: apiKey ?? '',
    });
    return anthropic(route.modelName);
  }
  const openAICompatible = createOpenAICompatible({
    name: route.provider,
    baseURL: route.baseUrl ?? DEFAULT_BASE_URLS.openai,
    apiKey,
    // Streamed answers end with their usage (`stream_options.include_usage`).
    includeUsage: true,
  });
  return openAICompatible.chatModel(route.modelName);
}

function invalidModel(model: string, reason: string): LLMError {
  return new LLMError({
    code: 'INVALID_CONFIG',
    message: `invalid LLM model "${model}": it ${reason}`,
    details: { field: 'model' },
  });
}
