import type { ConversationEventWire } from '@agent-workspace/protocol';
import { condensedView } from '../condenser/condensation-view.js';
import { textOfContent } from '../events/text-of-content.js';
import type { LLMMessage } from '../llm/llm-message.js';

/** What a tool call that never got a result is answered with in the transcript. */
export const INTERRUPTED_CALL_RESULT =
  'No result: the call was interrupted before it finished (the run was paused or stopped).';

/** Options of {@link buildTranscript}. */
export interface BuildTranscriptOptions {
  systemPrompt: string;
  events: readonly ConversationEventWire[];
}

/**
 * The messages a model is sent for a conversation: the system prompt, then the events in order.
 * The actions of one model response (same `llm_response_id`) become one assistant message with
 * their tool calls; each observation or agent error becomes the `tool` message of its call.
 * Providers insist that every tool call is answered before the next message, so a call left
 * without a result (an interrupted run) is answered with {@link INTERRUPTED_CALL_RESULT}, and a
 * user message sent while calls were pending is placed after their results. State updates,
 * pauses and conversation errors are not shown to the model. Recorded `Condensation`s are applied
 * first (their forgotten events left out, their summary shown as a user message in their place).
 */
export function buildTranscript({ systemPrompt, events }: BuildTranscriptOptions): LLMMessage[] {
  const messages: LLMMessage[] = [{ role: 'system', content: systemPrompt }];
  let group: { responseId: string; message: LLMMessage } | undefined;
  const pending = new Map<string, string>(); // tool call id → tool name
  let deferred: LLMMessage[] = [];

  const answerPending = (): void => {
    for (const [toolCallId, toolName] of pending) {
      messages.push({ role: 'tool', content: INTERRUPTED_CALL_RESULT, toolCallId, toolName });
    }
    pending.clear();
    messages.push(...deferred);
    deferred = [];
  };
  const answer = (toolCallId: string, toolName: string, content: string): void => {
    if (!pending.delete(toolCallId)) return; // not a call of the transcript: nothing to answer
    messages.push({ role: 'tool', content, toolCallId, toolName });
    if (pending.size === 0) {
      messages.push(...deferred);
      deferred = [];
    }
  };

  for (const event of condensedView(events).events) {
    switch (event.kind) {
      case 'MessageEvent': {
        const { role } = event.llm_message;
        if (role === 'tool') break;
        const message: LLMMessage = { role, content: textOfContent(event.llm_message.content) };
        if (pending.size > 0) deferred.push(message);
        else messages.push(message);
        group = undefined;
        break;
      }
      case 'ActionEvent': {
        const call = {
          id: event.tool_call.id,
          name: event.tool_call.name,
          arguments: event.tool_call.arguments,
        };
        if (group?.responseId === event.llm_response_id) {
          group.message.toolCalls = [...(group.message.toolCalls ?? []), call];
        } else {
          answerPending();
          const message: LLMMessage = {
            role: 'assistant',
            content: textOfContent(event.thought),
            toolCalls: [call],
          };
          messages.push(message);
          group = { responseId: event.llm_response_id, message };
        }
        pending.set(call.id, call.name);
        break;
      }
      case 'ObservationEvent':
        answer(event.tool_call_id, event.tool_name, textOfContent(event.observation.content));
        break;
      case 'AgentErrorEvent':
        answer(event.tool_call_id, event.tool_name, event.error);
        break;
      case 'UserRejectObservation': // OpenHands' text for a call the user rejected
        answer(event.tool_call_id, event.tool_name, `Action rejected: ${event.rejection_reason}`);
        break;
      default:
        break;
    }
  }
  answerPending();
  return messages;
}
