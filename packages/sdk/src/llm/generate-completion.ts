import { generateText } from 'ai';
import type { ToolCall } from './llm-message.js';
import {
  type AttemptResult,
  type StreamCompletionOptions,
  tokenUsageOf,
} from './stream-completion.js';

/** Options of {@link generateCompletion}: those of a streamed request, without a listener. */
export type GenerateCompletionOptions = Omit<StreamCompletionOptions, 'onDelta'>;

/**
 * One whole (non-streamed) request (`generateText`, one step, tools never executed, no retries
 * of the AI SDK's own): the same message `streamCompletion` assembles from a stream, each
 * tool call's arguments as the provider sent them. A failure is thrown as the AI SDK reports it.
 */
export async function generateCompletion(
  options: GenerateCompletionOptions,
): Promise<AttemptResult> {
  const { rawArguments, ...request } = options;
  const generated = await generateText({
    ...request,
    allowSystemInMessages: true,
    maxRetries: 0, // Ours: configurable backoff, typed errors, testable.
  });
  const toolCalls: ToolCall[] = generated.toolCalls.map((call) => ({
    id: call.toolCallId,
    name: call.toolName,
    arguments: rawArguments.get(call.toolCallId) ?? JSON.stringify(call.input ?? {}),
  }));
  return {
    responseId: generated.response.id,
    message: {
      role: 'assistant',
      content: generated.text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
    usage: tokenUsageOf(generated.usage),
  };
}
