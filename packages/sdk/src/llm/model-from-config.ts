import type { LanguageModel } from './language-model.js';
import { LLM } from './llm.js';
import { LLMError } from './llm-error.js';
import type { LLMFromConfigOptions } from './llm-options.js';
import { ScriptedLLM } from './scripted-llm.js';

/**
 * A model from its JSON form, as an agent's `llm` is read (`Agent.fromConfig`): a
 * `ScriptedLLM` when `kind` is `ScriptedLLM`, an `LLM` otherwise (the environment is not read
 * unless `options.env` is given). What `switch_llm` validates its body's `llm` with.
 * @throws LLMError `INVALID_CONFIG` naming the bad field.
 */
export function languageModelFromConfig(
  json: unknown,
  options: LLMFromConfigOptions = {},
): LanguageModel {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new LLMError({
      code: 'INVALID_CONFIG',
      message: 'invalid LLM config: (root): must be an object',
      details: { field: '(root)', fields: ['(root)'] },
    });
  }
  return (json as { kind?: unknown }).kind === 'ScriptedLLM'
    ? ScriptedLLM.fromConfig(json)
    : LLM.fromConfig(json, options);
}
