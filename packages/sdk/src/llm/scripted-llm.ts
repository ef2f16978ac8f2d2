import { z } from 'zod';
import type { Completion, CompletionRequest, LanguageModel } from './language-model.js';
import { configError } from './llm-config.js';
import { LLMError } from './llm-error.js';
import type { ToolCall } from './llm-message.js';

/** The model id of every {@link ScriptedLLM}: it is a script, not a model. */
export const SCRIPTED_MODEL = 'scripted';

const scriptedToolCallSchema = z.object({
  /** LLM-facing tool name, e.g. `terminal`. */
  name: z.string().min(1),
  /** An arguments object, or raw JSON text (to script a model that writes malformed JSON). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  /** Id of the call; default `call_<step>_<index>`. */
  id: z.string().min(1).optional(),
});

const scriptedStepConfigSchema = z
  .object({
    text: z.string().optional(),
    tool_calls: z.array(scriptedToolCallSchema).optional(),
  })
  .refine((step) => step.text !== undefined || (step.tool_calls?.length ?? 0) > 0, {
    message: 'a step needs text, tool_calls or both',
  });

/**
 * The JSON form of a {@link ScriptedLLM} (`toConfig()` / `fromConfig()`), so an agent with a
 * scripted model can travel to an agent-server.
 */
export const scriptedLLMConfigSchema = z.object({
  kind: z.literal('ScriptedLLM'),
  script: z.array(scriptedStepConfigSchema),
});

/** JSON form of a {@link ScriptedLLM}. */
export type ScriptedLLMConfig = z.infer<typeof scriptedLLMConfigSchema>;

/** One tool call of a {@link ScriptedStep}. */
export type ScriptedToolCall = z.infer<typeof scriptedToolCallSchema>;

/** One answer of a {@link ScriptedLLM}: assistant text, tool calls, or both. */
export interface ScriptedStep {
  text?: string | undefined;
  toolCalls?: ScriptedToolCall[] | undefined;
}

/** Options of {@link ScriptedLLM}. */
export interface ScriptedLLMOptions {
  /** The answers, in order. */
  script: readonly ScriptedStep[];
}

/**
 * A deterministic stand-in for a model: it answers with the steps of a script, in order. For
 * tests, demos and examples; its model id is `scripted` and it never claims to be a real model.
 *
 * It keeps no state of its own: the step it answers comes from the request's transcript — one
 * past the last step whose tool call ids (`call_<step>_<n>`) it holds, or the number of assistant
 * messages when that is more — so a reopened conversation (or one moved to an agent-server)
 * carries on where it stopped, also when the transcript holds only its newest events, and a call
 * that was cancelled is answered again by the same step.
 * Past the end of the script it answers a final assistant text saying so (no tool calls), which
 * ends an agent's run. A fired `signal` gives an `ABORTED` `LLMError`.
 */
export class ScriptedLLM implements LanguageModel {
  readonly model = SCRIPTED_MODEL;
  readonly #script: readonly ScriptedStep[];

  constructor({ script }: ScriptedLLMOptions) {
    const config = { kind: 'ScriptedLLM', script: structuredClone(script.map(stepToConfig)) };
    // Validate the same way as JSON, so a bad step fails here and not mid-run.
    this.#script = parseScriptedLLMConfig(config).script.map(stepFromConfig);
  }

  /** Builds a scripted model from its JSON form. Bad JSON is an `INVALID_CONFIG` `LLMError`. */
  static fromConfig(json: unknown): ScriptedLLM {
    return new ScriptedLLM({ script: parseScriptedLLMConfig(json).script.map(stepFromConfig) });
  }

  /** Number of steps of the script. */
  get length(): number {
    return this.#script.length;
  }

  /** The JSON form: `{ kind: 'ScriptedLLM', script: [...] }`. */
  toConfig(): ScriptedLLMConfig {
    return { kind: 'ScriptedLLM', script: structuredClone(this.#script.map(stepToConfig)) };
  }

  /** Answers the next step of the transcript (see the class). */
  async complete(request: CompletionRequest): Promise<Completion> {
    if (request.signal?.aborted) {
      throw new LLMError({
        code: 'ABORTED',
        message: 'the call of the scripted model was aborted',
        cause: request.signal.reason,
      });
    }
    const index = nextStep(request.messages);
    const id = `scripted-${index}`;
    const usage = { inputTokens: 0, outputTokens: 0 };
    const step = this.#script[index];
    if (step === undefined) {
      const text = `ScriptedLLM: the script has ended (${this.#script.length} steps); nothing more to do.`;
      return { id, message: { role: 'assistant', content: text }, usage };
    }
    const toolCalls = (step.toolCalls ?? []).map(
      (call, callIndex): ToolCall => ({
        id: call.id ?? `call_${index}_${callIndex}`,
        name: call.name,
        arguments:
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      }),
    );
    return {
      id,
      message: {
        role: 'assistant',
        content: step.text ?? '',
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      },
      usage,
    };
  }
}

/**
 * The step after the transcript: the number of its assistant messages, or one past the highest
 * step named by their tool call ids when that is more (a transcript cut to its newest events).
 */
function nextStep(messages: CompletionRequest['messages']): number {
  let next = 0;
  let assistants = 0;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    assistants++;
    for (const call of message.toolCalls ?? []) {
      const step = /^call_(\d+)_\d+$/.exec(call.id)?.[1];
      if (step !== undefined) next = Math.max(next, Number(step) + 1);
    }
  }
  return Math.max(next, assistants);
}

function parseScriptedLLMConfig(json: unknown): ScriptedLLMConfig {
  const parsed = scriptedLLMConfigSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw configError('ScriptedLLM config', parsed.error.issues);
}

function stepToConfig(step: ScriptedStep): ScriptedLLMConfig['script'][number] {
  return {
    ...(step.text !== undefined ? { text: step.text } : {}),
    ...(step.toolCalls !== undefined ? { tool_calls: step.toolCalls } : {}),
  };
}

function stepFromConfig(step: ScriptedLLMConfig['script'][number]): ScriptedStep {
  return {
    ...(step.text !== undefined ? { text: step.text } : {}),
    ...(step.tool_calls !== undefined ? { toolCalls: step.tool_calls } : {}),
  };
}
