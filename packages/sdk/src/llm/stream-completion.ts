import {
  type LanguageModelUsage,
  type ModelMessage,
  streamText,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';
import type { TokenUsage } from './language-model.js';
import type { LLMMessage, ToolCall } from './llm-message.js';
import type { ProviderModel } from './llm-route.js';

/** A piece of a streamed answer: text (`content`) or reasoning, as it arrives. */
export interface StreamDelta {
  /** A piece of the answer's text. */
  content?: string | undefined;
  /** A piece of the model's reasoning (providers that send `reasoning_content`). */
  reasoningContent?: string | undefined;
}

/** Told each {@link StreamDelta} of a streamed answer, in order. */
export type StreamDeltaListener = (delta: StreamDelta) => void;

/** What one model request gave, streamed or not. */
export interface AttemptResult {
  responseId: string;
  message: LLMMessage;
  usage: TokenUsage;
}

/**
 * The provider model wrapped to note each tool call's raw argument text as the provider sent it
 * (before the AI SDK parses it), for whole and streamed answers alike, into `rawArguments`.
 */
export function withRawToolArguments(
  model: ProviderModel,
  rawArguments: Map<string, string>,
): ProviderModel {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ doGenerate }) => {
        const result = await doGenerate();
        for (const part of result.content) {
          if (part.type === 'tool-call') rawArguments.set(part.toolCallId, part.input);
        }
        return result;
      },
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        const stream = result.stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              if (part.type === 'tool-call') rawArguments.set(part.toolCallId, part.input);
              controller.enqueue(part);
            },
          }),
        );
        return { ...result, stream };
      },
    },
  });
}

/** OpenHands' token counts from the AI SDK's usage (absent counts are 0). */
export function tokenUsageOf(usage: LanguageModelUsage | undefined): TokenUsage {
  const cacheRead = usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens;
  const cacheWrite = usage?.inputTokenDetails?.cacheWriteTokens;
  const reasoning = usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens;
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    ...(cacheRead ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
  };
}

/** Options of {@link streamCompletion}. */
export interface StreamCompletionOptions {
  model: ProviderModel;
  messages: ModelMessage[];
  tools: ToolSet | undefined;
  abortSignal: AbortSignal;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  /** Raw argument text by tool call id (see {@link withRawToolArguments}). */
  rawArguments: ReadonlyMap<string, string>;
  /** Told each text and reasoning delta as it arrives. */
  onDelta: StreamDeltaListener | undefined;
}

/**
 * One streamed request (`streamText`, one step, tools never executed): each text and reasoning
 * delta goes to `onDelta` as it arrives, and the answer is assembled from them — the same
 * message a whole (non-streamed) answer gives. A failure in the stream is thrown as the AI SDK
 * reports it (so the caller classifies and retries it); an aborted stream throws the abort's
 * reason. A listener that throws is ignored: it cannot break the answer.
 */
export async function streamCompletion(options: StreamCompletionOptions): Promise<AttemptResult> {
  const { onDelta } = options;
  const tell = (delta: StreamDelta): void => {
    try {
      onDelta?.(delta);
    } catch {
      // The listener's failure is its own.
    }
  };
  const result = streamText({
    model: options.model,
    messages: options.messages,
    tools: options.tools,
    allowSystemInMessages: true,
    maxRetries: 0,
    abortSignal: options.abortSignal,
    temperature: options.temperature,
    maxOutputTokens: options.maxOutputTokens,
    // Errors come through the stream's `error` part, thrown below; nothing is logged.
    onError: () => {},
  });
  let text = '';
  let responseId = '';
  let usage: LanguageModelUsage | undefined;
  const toolCalls: ToolCall[] = [];
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        tell({ content: part.text });
        break;
      case 'reasoning-delta':
        tell({ reasoningContent: part.text });
        break;
      case 'tool-call':
        toolCalls.push({
          id: part.toolCallId,
          name: part.toolName,
          arguments: options.rawArguments.get(part.toolCallId) ?? JSON.stringify(part.input ?? {}),
        });
        break;
      case 'finish-step':
        responseId = part.response.id;
        usage = part.usage;
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw options.abortSignal.reason ?? new Error('the stream was aborted');
      default:
        break;
    }
  }
  if (options.abortSignal.aborted) throw options.abortSignal.reason;
  return {
    responseId,
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
    usage: tokenUsageOf(usage),
  };
}
