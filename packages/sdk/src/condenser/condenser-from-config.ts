import { WorkspaceError } from '@agent-workspace/core';
import type { ConversationEventWire } from '@agent-workspace/protocol';
import type { LanguageModel } from '../llm/language-model.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import { condensedView } from './condensation-view.js';
import {
  type CondenseRequest,
  type Condenser,
  LLMSummarizingCondenser,
  NoOpCondenser,
  RollingWindowCondenser,
} from './condenser.js';
import { type CondenserConfig, condenserConfigSchema } from './condenser-config.js';

/** How {@link condenserFromConfig} makes models. */
export interface CondenserFromConfigOptions {
  /** The agent's model: what an `LLMSummarizingCondenser` without `llm` summarises with. */
  agentModel: LanguageModel;
  /** Builds a model from an `llm` config that is not a `ScriptedLLM`'s. */
  createModel: (config: Record<string, unknown>) => LanguageModel;
}

/**
 * The condenser of an agent's `condenser` JSON (`null` / absent: none).
 * @throws WorkspaceError `INVALID_CONFIG` naming the field (`condenser.kind` for an unknown kind).
 */
export function condenserFromConfig(
  json: unknown,
  options: CondenserFromConfigOptions,
): Condenser | undefined {
  if (json === undefined || json === null) return undefined;
  const parsed = condenserConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ['condenser', ...issue.path].join('.');
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `invalid agent config: ${field}: ${issue.message}`,
      details: { field },
    });
  }
  return condenserOf(parsed.data, options);
}

function condenserOf(config: CondenserConfig, options: CondenserFromConfigOptions): Condenser {
  switch (config.kind) {
    case 'NoOpCondenser':
      return new NoOpCondenser();
    case 'RollingWindowCondenser':
      return new RollingWindowCondenser({ maxSize: config.max_size, keepFirst: config.keep_first });
    case 'LLMSummarizingCondenser': {
      const { llm } = config;
      const model =
        llm === undefined || llm === null
          ? options.agentModel
          : llm.kind === 'ScriptedLLM'
            ? ScriptedLLM.fromConfig(llm)
            : options.createModel(llm);
      return new LLMSummarizingCondenser({
        llm: model,
        sharesAgentModel: model === options.agentModel,
        maxSize: config.max_size,
        keepFirst: config.keep_first,
      });
    }
  }
}

/**
 * What the condenser makes of `events` before a model call: a `Condensation` to record (the step
 * then ends without calling the model, as OpenHands' agent does), or none. Without a condenser,
 * or with one that does not handle requests, a pending request is left alone.
 */
export async function condensationFor(
  condenser: Condenser | undefined,
  events: readonly ConversationEventWire[],
  options: Pick<CondenseRequest, 'signal' | 'onLLMResponse'> = {},
): Promise<ConversationEventWire | undefined> {
  if (condenser === undefined) return undefined;
  const view = condensedView(events);
  const requested = view.requested && condenser.handlesRequests;
  return condenser.condense({ view: view.events, requested, ...options });
}
