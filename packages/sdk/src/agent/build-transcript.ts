import type { ConversationEventWire } from '@agent-workspace/protocol';
import { condensedView, isViewEvent, type ViewEvent } from '../condenser/condensation-view.js';
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
export function buildTranscript(options: BuildTranscriptOptions): LLMMessage[] {
  return new TranscriptBuilder().build(options);
}

/**
 * {@link buildTranscript} for a history that grows between calls: a step of a running
 * conversation reads only the events recorded since the last one, so a step costs the same at
 * event 10 and at event 10,000. It starts over when the history is not the one it read with
 * events added at the end (another array, events dropped from the front) or when a new
 * `Condensation` changes what is shown. Messages it returned are never changed afterwards.
 */
export class TranscriptBuilder {
  #events: readonly ConversationEventWire[] | undefined;
  /** How many of `#events` are read, and the last one of them (to notice a changed history). */
  #read = 0;
  #last: ConversationEventWire | undefined;
  #messages: LLMMessage[] = [];
  /** The assistant message of the latest model response, while its calls may still grow. */
  #group: { responseId: string; index: number } | undefined;
  /** Calls not answered yet: tool call id → tool name. */
  readonly #pending = new Map<string, string>();
  /** Messages that came while calls were pending; they follow the calls' results. */
  #deferred: LLMMessage[] = [];

  /** The transcript of `events`, reading only what was added since the last call when it can. */
  build({ systemPrompt, events }: BuildTranscriptOptions): LLMMessage[] {
    if (!this.#continues(events)) this.#restart(events);
    for (; this.#read < events.length; this.#read++) {
      const event = events[this.#read] as ConversationEventWire;
      if (event.kind === 'Condensation') {
        // It changes what is shown before it: the whole view is read anew.
        this.#restart(events);
        break;
      }
      if (isViewEvent(event)) this.#add(event);
    }
    this.#last = events[this.#read - 1];
    const messages: LLMMessage[] = [{ role: 'system', content: systemPrompt }, ...this.#messages];
    for (const [toolCallId, toolName] of this.#pending) {
      messages.push(interrupted(toolCallId, toolName));
    }
    messages.push(...this.#deferred);
    return messages;
  }

  /** True when `events` is the history read so far, perhaps with events added at its end. */
  #continues(events: readonly ConversationEventWire[]): boolean {
    if (events !== this.#events || events.length < this.#read) return false;
    return this.#read === 0 || events[this.#read - 1] === this.#last;
  }

  /** Reads `events` from the start through their condensed view. */
  #restart(events: readonly ConversationEventWire[]): void {
    this.#events = events;
    this.#messages = [];
    this.#group = undefined;
    this.#pending.clear();
    this.#deferred = [];
    for (const event of condensedView(events).events) this.#add(event);
    this.#read = events.length;
  }

  #add(event: ViewEvent): void {
    switch (event.kind) {
      case 'MessageEvent': {
        const { role } = event.llm_message;
        if (role === 'tool') break;
        const message: LLMMessage = { role, content: textOfContent(event.llm_message.content) };
        if (this.#pending.size > 0) this.#deferred.push(message);
        else this.#messages.push(message);
        this.#group = undefined;
        break;
      }
      case 'ActionEvent': {
        const call = {
          id: event.tool_call.id,
          name: event.tool_call.name,
          arguments: event.tool_call.arguments,
        };
        const group = this.#group;
        if (group?.responseId === event.llm_response_id) {
          // A new message object: one already returned keeps the calls it had.
          const message = this.#messages[group.index] as LLMMessage;
          this.#messages[group.index] = {
            ...message,
            toolCalls: [...(message.toolCalls ?? []), call],
          };
        } else {
          this.#answerPending();
          this.#messages.push({
            role: 'assistant',
            content: textOfContent(event.thought),
            toolCalls: [call],
          });
          this.#group = { responseId: event.llm_response_id, index: this.#messages.length - 1 };
        }
        this.#pending.set(call.id, call.name);
        break;
      }
      case 'ObservationEvent':
        this.#answer(event.tool_call_id, event.tool_name, textOfContent(event.observation.content));
        break;
      case 'AgentErrorEvent':
        this.#answer(event.tool_call_id, event.tool_name, event.error);
        break;
      case 'UserRejectObservation': // OpenHands' text for a call the user rejected
        this.#answer(
          event.tool_call_id,
          event.tool_name,
          `Action rejected: ${event.rejection_reason}`,
        );
        break;
    }
  }

  /** Answers every pending call as interrupted, then places the deferred messages. */
  #answerPending(): void {
    for (const [toolCallId, toolName] of this.#pending) {
      this.#messages.push(interrupted(toolCallId, toolName));
    }
    this.#pending.clear();
    this.#flushDeferred();
  }

  #answer(toolCallId: string, toolName: string, content: string): void {
    if (!this.#pending.delete(toolCallId)) return; // not a call of the transcript: nothing to answer
    this.#messages.push({ role: 'tool', content, toolCallId, toolName });
    if (this.#pending.size === 0) this.#flushDeferred();
  }

  #flushDeferred(): void {
    this.#messages.push(...this.#deferred);
    this.#deferred = [];
  }
}

function interrupted(toolCallId: string, toolName: string): LLMMessage {
  return { role: 'tool', content: INTERRUPTED_CALL_RESULT, toolCallId, toolName };
}
