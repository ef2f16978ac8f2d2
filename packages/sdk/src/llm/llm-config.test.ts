import { inspect } from 'node:util';
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { LLM } from './llm.js';
import type { LLMConfig } from './llm-config.js';
import { LLMError } from './llm-error.js';

const SECRET = 'sk-live-0123456789abcdef';

function thrown(action: () => unknown): LLMError {
  try {
    action();
  } catch (error) {
    expect(LLMError.isInstance(error), String(error)).toBe(true);
    return error as LLMError;
  }
  throw new Error('expected a throw');
}

const full: LLMConfig = {
  kind: 'LLM',
  model: 'openai/gpt-4o-mini',
  base_url: 'http://127.0.0.1:9/v1',
  api_key: SECRET,
  timeout: 30,
  num_retries: 2,
  retry_min_wait: 1,
  retry_max_wait: 10,
  input_cost_per_token: 0.00000015,
  output_cost_per_token: 0.0000006,
  temperature: 0.2,
  max_output_tokens: 2048,
  usage_id: 'agent',
};

describe('LLM config', () => {
  it('writes the options with OpenHands field names, seconds and prices per token', () => {
    const llm = new LLM({
      model: 'openai/gpt-4o-mini',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: SECRET,
      timeoutMs: 30_000,
      maxRetries: 2,
      retryMinWaitMs: 1000,
      retryMaxWaitMs: 10_000,
      inputCostPerMillionTokens: 0.15,
      outputCostPerMillionTokens: 0.6,
      temperature: 0.2,
      maxOutputTokens: 2048,
      usageId: 'agent',
      env: {},
    });

    expect(llm.toConfig({ includeApiKey: true })).toEqual(full);
    const { api_key: _key, ...withoutKey } = full;
    expect(llm.toConfig()).toEqual(withoutKey);
  });

  it('round-trips through fromConfig', () => {
    const llm = LLM.fromConfig(full);

    expect(llm.toConfig({ includeApiKey: true })).toEqual(full);
    expect(llm.usageId).toBe('agent');
  });

  it('accepts an OpenHands LLM config: no kind, nulls, fields it does not know', () => {
    const llm = LLM.fromConfig({
      model: 'anthropic/claude-sonnet-4-5',
      base_url: null,
      api_key: null,
      timeout: null,
      num_retries: 5,
      drop_params: true,
      reasoning_effort: 'high',
    });

    expect(llm.toConfig({ includeApiKey: true })).toEqual({
      kind: 'LLM',
      model: 'anthropic/claude-sonnet-4-5',
      num_retries: 5,
    });
  });

  it('reads no environment unless asked to', () => {
    const env = { LLM_API_KEY: 'sk-server-side' };
    expect(LLM.fromConfig({ model: 'openai/x' }).toConfig({ includeApiKey: true })).toEqual({
      kind: 'LLM',
      model: 'openai/x',
    });
    expect(
      LLM.fromConfig({ model: 'openai/x' }, { env }).toConfig({ includeApiKey: true }),
    ).toEqual({ kind: 'LLM', model: 'openai/x', api_key: 'sk-server-side' });
  });

  it('names every bad field, never its value', () => {
    const error = thrown(() =>
      LLM.fromConfig({
        model: 'openai/x',
        api_key: SECRET,
        timeout: -1,
        num_retries: 1.5,
        base_url: `ftp://${SECRET}@example.com`,
      }),
    );

    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.details.fields).toEqual(['base_url', 'timeout', 'num_retries']);
    expect(error.message).toMatch(/^invalid LLM config: base_url: .+; timeout: .+; num_retries: /);
    expect(error.message).not.toContain(SECRET);
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
  });

  it('refuses another kind, a missing model and a bad api_key type', () => {
    expect(thrown(() => LLM.fromConfig({ kind: 'ScriptedLLM', model: 'x' })).details.field).toBe(
      'kind',
    );
    expect(thrown(() => LLM.fromConfig({ base_url: 'http://h/v1' })).details.field).toBe('model');
    expect(thrown(() => LLM.fromConfig({ model: 'openai/x', api_key: 42 })).details.field).toBe(
      'api_key',
    );
    expect(thrown(() => LLM.fromConfig('openai/x')).code).toBe('INVALID_CONFIG');
  });

  it('names the option, not the config field, when options are bad', () => {
    const timeout = thrown(() => new LLM({ model: 'openai/x', timeoutMs: 0, env: {} }));
    expect(timeout.details.field).toBe('timeoutMs');
    const missing = thrown(() => new LLM({ env: {} }));
    expect(missing.details.field).toBe('model');
    expect(missing.message).toContain('LLM_MODEL');
  });
});

describe('LLM API key', () => {
  const llm = new LLM({ model: 'openai/x', apiKey: SECRET, env: {} });

  it('stays out of toString, util.inspect and JSON.stringify', () => {
    expect(String(llm)).toBe('LLM(openai/x)');
    expect(`${llm}`).not.toContain(SECRET);
    for (const shown of [
      inspect(llm),
      inspect(llm, { depth: 20, showHidden: true }),
      inspect({ agent: { llm } }, { depth: 20 }),
      JSON.stringify(llm),
      JSON.stringify({ agent: { llm } }),
      JSON.stringify(llm.toConfig()),
    ]) {
      expect(shown).not.toContain(SECRET);
    }
    expect(inspect(llm)).toContain("api_key: '[REDACTED]'");
    expect(JSON.parse(JSON.stringify(llm))).toEqual({ kind: 'LLM', model: 'openai/x' });
  });

  it('is given only by toConfig({ includeApiKey: true })', () => {
    expect(llm.toConfig()).not.toHaveProperty('api_key');
    expect(llm.toConfig({ includeApiKey: true }).api_key).toBe(SECRET);
  });
});

describe('LLMError', () => {
  it('is a WorkspaceError with its code, recognised across copies by its marker', () => {
    const error = new LLMError({ code: 'LLM_TIMEOUT', message: 'late' });

    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.name).toBe('LLMError');
    expect(LLMError.isInstance(error, 'LLM_TIMEOUT')).toBe(true);
    expect(LLMError.isInstance(error, 'ABORTED')).toBe(false);
    expect(WorkspaceError.isInstance(error, 'LLM_TIMEOUT')).toBe(true);
    expect(LLMError.isInstance(new WorkspaceError({ code: 'ABORTED', message: 'x' }))).toBe(false);
  });
});
