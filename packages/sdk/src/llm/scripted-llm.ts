import { z } from 'zod';
import { askAgentQuestionOf } from './ask-agent-prompt.js';
import type { Completion, CompletionRequest, LanguageModel, TokenUsage } from './language-model.js';
import { configError } from './llm-config.js';
import { LLMError } from './llm-error.js';
import type { ToolCall } from './llm-message.js';
import {
  MAX_SCRIPTED_STREAM_CHUNK_CHARS,
  MAX_SCRIPTED_STREAM_DELAY_MS,
  streamScriptedAnswer,
} from './stream-scripted.js';

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

const tokens = z.number().int().min(0).optional();

/** Token counts a scripted step reports (OpenHands' names); absent counts are 0. */
const scriptedUsageSchema = z.object({
  prompt_tokens: tokens,
  completion_tokens: tokens,
  cache_read_tokens: tokens,
  cache_write_tokens: tokens,
  reasoning_tokens: tokens,
});

const scriptedStepConfigSchema = z
  .object({
    text: z.string().optional(),
    tool_calls: z.array(scriptedToolCallSchema).optional(),
    /** Reasoning streamed (as `reasoning_content` deltas) before the text; not in the answer. */
    reasoning: z.string().optional(),
    usage: scriptedUsageSchema.optional(),
  })
  .refine((step) => step.text !== undefined || (step.tool_calls?.length ?? 0) > 0, {
    message: 'a step needs text, tool_calls or both',
  });

/**
 * The JSON form of a {@link ScriptedLLM} (`toConfig()` / `fromConfig()`), so an agent with a
 * scripted model can travel to an agent-server.
 */
export const scriptedLLMConfigSchema = z
  .object({
    kind: z.literal('ScriptedLLM'),
    script: z.array(scriptedStepConfigSchema),
    /** Start the script over after its last step (step `n` answers `script[n % length]`). */
    repeat: z.boolean().optional(),
    /** Stream each answer's reasoning and text in chunks to the request's `onStreamDelta`. */
    stream: z.boolean().optional(),
    /** Characters per streamed chunk; default 8. */
    stream_chunk_chars: z.number().int().min(1).max(MAX_SCRIPTED_STREAM_CHUNK_CHARS).optional(),
    /** Pause before each streamed chunk, in ms (to test cancellation mid-stream); default 0. */
    stream_delay_ms: z.number().int().min(0).max(MAX_SCRIPTED_STREAM_DELAY_MS).optional(),
    /** Who the usage is accounted to (OpenHands' `usage_id`); default `default`. */
    usage_id: z.string().min(1).optional(),
    /** The answer to every side question (`askAgent`); default a sentence describing the question. */
    question_answer: z.string().optional(),
  })
  .refine((config) => !config.repeat || config.script.length > 0, {
    message: 'a script that repeats needs at least one step',
    path: ['script'],
  });

/** JSON form of a {@link ScriptedLLM}. */
export type ScriptedLLMConfig = z.infer<typeof scriptedLLMConfigSchema>;

/** One tool call of a {@link ScriptedStep}. */
export type ScriptedToolCall = z.infer<typeof scriptedToolCallSchema>;

/** Token counts a {@link ScriptedStep} reports, OpenHands' names. */
export type ScriptedUsage = z.infer<typeof scriptedUsageSchema>;

/** One answer of a {@link ScriptedLLM}: assistant text, tool calls, or both. */
export interface ScriptedStep {
  text?: string | undefined;
  toolCalls?: ScriptedToolCall[] | undefined;
  /** Reasoning streamed before the text when the model streams (never in the answer). */
  reasoning?: string | undefined;
  /** The tokens this answer reports; all 0 when absent. */
  usage?: ScriptedUsage | undefined;
}

/** Options of {@link ScriptedLLM}. */
export interface ScriptedLLMOptions {
  /** The answers, in order. */
  script: readonly ScriptedStep[];
  /**
   * Start the script over after its last step instead of ending (step `n` answers
   * `script[n % script.length]`), e.g. `[toolCall, text]` for one tool call per run, forever.
   * Needs at least one step.
   */
  repeat?: boolean | undefined;
  /** Stream each answer's reasoning and text in chunks to the request's `onStreamDelta`. */
  stream?: boolean | undefined;
  /** Characters per streamed chunk, 1 to 10 000; default 8. */
  streamChunkChars?: number | undefined;
  /** Pause before each streamed chunk in ms, 0 to 10 000; default 0. */
  streamDelayMs?: number | undefined;
  /** Who the usage is accounted to; default `default`. */
  usageId?: string | undefined;
  /** The answer to every side question (`askAgent`); default a sentence describing the question. */
  questionAnswer?: string | undefined;
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
 * ends an agent's run; with `repeat` it starts the script over instead. A fired `signal` gives an `ABORTED` `LLMError`.
 *
 * With `stream`, each answer's `reasoning` and text are told to the request's `onStreamDelta`
 * in chunks of `streamChunkChars`, each after `streamDelayMs` (so tests see deltas, and can
 * cancel mid-stream). Each step reports its scripted `usage` (0 tokens otherwise), accounted to
 * `usageId`. A side question (`askAgent`'s prompt as the last message) is answered with
 * `questionAnswer` without taking a step of the script.
 */
export class ScriptedLLM implements LanguageModel {
  readonly model = SCRIPTED_MODEL;
  /** Who the usage is accounted to. */
  readonly usageId: string;
  readonly #config: ScriptedLLMConfig;
  readonly #script: readonly ScriptedStep[];

  constructor(options: ScriptedLLMOptions) {
    // Validate the same way as JSON, so a bad step fails here and not mid-run.
    this.#config = parseScriptedLLMConfig(configOf(options));
    this.#script = this.#config.script.map(stepFromConfig);
    this.usageId = this.#config.usage_id ?? 'default';
  }

  /** Builds a scripted model from its JSON form. Bad JSON is an `INVALID_CONFIG` `LLMError`. */
  static fromConfig(json: unknown): ScriptedLLM {
    const config = parseScriptedLLMConfig(json);
    return new ScriptedLLM({
      script: config.script.map(stepFromConfig),
      repeat: config.repeat,
      stream: config.stream,
      streamChunkChars: config.stream_chunk_chars,
      streamDelayMs: config.stream_delay_ms,
      usageId: config.usage_id,
      questionAnswer: config.question_answer,
    });
  }

  /** Number of steps of the script. */
  get length(): number {
    return this.#script.length;
  }

  /** The JSON form: `{ kind: 'ScriptedLLM', script: [...] }`. */
  toConfig(): ScriptedLLMConfig {
    return structuredClone(this.#config);
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
    const last = request.messages.at(-1);
    const question = last?.role === 'user' ? askAgentQuestionOf(last.content) : undefined;
    if (question !== undefined) {
      const text =
        this.#config.question_answer ??
        `ScriptedLLM: asked "${question}" after ${request.messages.length - 1} messages.`;
      return this.#answer(request, `scripted-question-${index}`, { text }, text);
    }
    const id = `scripted-${index}`;
    const step = this.#config.repeat
      ? this.#script[index % this.#script.length]
      : this.#script[index];
    if (step === undefined) {
      const text = `ScriptedLLM: the script has ended (${this.#script.length} steps); nothing more to do.`;
      return this.#answer(request, id, { text }, text);
    }
    const toolCalls = (step.toolCalls ?? []).map(
      (call, callIndex): ToolCall => ({
        id: call.id ?? `call_${index}_${callIndex}`,
        name: call.name,
        arguments:
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      }),
    );
    return this.#answer(request, id, step, step.text ?? '', toolCalls);
  }

  /** The completion of `step`, streamed first when the model streams. */
  async #answer(
    request: CompletionRequest,
    id: string,
    step: ScriptedStep,
    text: string,
    toolCalls: ToolCall[] = [],
  ): Promise<Completion> {
    if (this.#config.stream) {
      await streamScriptedAnswer({
        reasoning: step.reasoning ?? '',
        text,
        chunkChars: this.#config.stream_chunk_chars ?? 8,
        delayMs: this.#config.stream_delay_ms ?? 0,
        signal: request.signal,
        onDelta: request.onStreamDelta,
      });
    }
    return {
      id,
      message: {
        role: 'assistant',
        content: text,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      },
      usage: usageOf(step.usage),
    };
  }
}

/** The JSON form of options (validated by the caller). */
function configOf(options: ScriptedLLMOptions): unknown {
  const optional = {
    repeat: options.repeat,
    stream: options.stream,
    stream_chunk_chars: options.streamChunkChars,
    stream_delay_ms: options.streamDelayMs,
    usage_id: options.usageId,
    question_answer: options.questionAnswer,
  };
  return {
    kind: 'ScriptedLLM',
    script: structuredClone((options.script ?? []).map(stepToConfig)),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

function usageOf(usage: ScriptedUsage | undefined): TokenUsage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    ...(usage?.cache_read_tokens ? { cacheReadTokens: usage.cache_read_tokens } : {}),
    ...(usage?.cache_write_tokens ? { cacheWriteTokens: usage.cache_write_tokens } : {}),
    ...(usage?.reasoning_tokens ? { reasoningTokens: usage.reasoning_tokens } : {}),
  };
}

/**
 * The step after the transcript: the number of its assistant messages, or one past the highest
 * step named by their tool call ids when that is more (a transcript cut to its newest events).
 * Each step is past every step named before it, so only the newest named one is read.
 */
function nextStep(messages: CompletionRequest['messages']): number {
  let next = 0;
  let assistants = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as CompletionRequest['messages'][number];
    if (message.role !== 'assistant') continue;
    assistants += 1;
    if (next > 0) continue;
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
    ...(step.reasoning !== undefined ? { reasoning: step.reasoning } : {}),
    ...(step.usage !== undefined ? { usage: step.usage } : {}),
  };
}

function stepFromConfig(step: ScriptedLLMConfig['script'][number]): ScriptedStep {
  return {
    ...(step.text !== undefined ? { text: step.text } : {}),
    ...(step.tool_calls !== undefined ? { toolCalls: step.tool_calls } : {}),
    ...(step.reasoning !== undefined ? { reasoning: step.reasoning } : {}),
    ...(step.usage !== undefined ? { usage: step.usage } : {}),
  };
}
