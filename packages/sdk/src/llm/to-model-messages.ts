import type { AssistantContent, ModelMessage } from 'ai';
import { LLMError } from './llm-error.js';
import type { LLMMessage } from './llm-message.js';
import type { LLMApi } from './llm-route.js';

/**
 * Maps our transcript to the AI SDK's model messages. A tool call's raw argument text goes to
 * an OpenAI-compatible API verbatim (malformed text as a JSON string); Anthropic needs an
 * object, so malformed arguments become `{}` there. A `tool` message without `toolName` takes
 * the name of the call it answers. Bad messages are `INVALID_ARGUMENT` errors naming the field.
 */
export function toModelMessages(messages: readonly LLMMessage[], api: LLMApi): ModelMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message, index): ModelMessage => {
    const field = `messages[${index}]`;
    if (typeof message.content !== 'string') {
      throw invalidMessage(`${field}.content`, 'must be a string');
    }
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        const content: Exclude<AssistantContent, string> = [];
        if (message.content !== '') content.push({ type: 'text', text: message.content });
        for (const call of calls) {
          toolNames.set(call.id, call.name);
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: api === 'anthropic' ? parseArguments(call.arguments) : call.arguments,
          });
        }
        return { role: 'assistant', content };
      }
      case 'tool': {
        const toolCallId = message.toolCallId;
        if (!toolCallId)
          throw invalidMessage(`${field}.toolCallId`, 'is required for a tool message');
        const toolName = message.toolName ?? toolNames.get(toolCallId);
        if (!toolName) {
          throw invalidMessage(
            `${field}.toolName`,
            `is unknown: no earlier call has id ${toolCallId}`,
          );
        }
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId,
              toolName,
              output: { type: 'text', value: message.content },
            },
          ],
        };
      }
      default:
        throw invalidMessage(`${field}.role`, `must be system, user, assistant or tool`);
    }
  });
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function invalidMessage(field: string, reason: string): LLMError {
  return new LLMError({
    code: 'INVALID_ARGUMENT',
    message: `${field} ${reason}`,
    details: { field },
  });
}
