import { abortedError, invalidArgument } from '@agent-workspace/core';
import {
  type ConversationEventWire,
  MAX_ASK_AGENT_QUESTION_LENGTH,
} from '@agent-workspace/protocol';
import { askAgentPrompt } from '../llm/ask-agent-prompt.js';
import type { Completion, LanguageModel } from '../llm/language-model.js';
import { LLMError } from '../llm/llm-error.js';
import type { Tool } from '../tools/tool.js';
import { buildTranscript } from './build-transcript.js';
import { toolSpecOf } from './tool-spec-of.js';

/** Re-exported: the prompt lives with the models (a `ScriptedLLM` recognises it). */
export { askAgentPrompt, askAgentQuestionOf } from '../llm/ask-agent-prompt.js';

/** Usage id the side questions are accounted to (OpenHands' `ask-agent-llm`). */
export const ASK_AGENT_USAGE_ID = 'ask-agent-llm';

/**
 * Checks a side question: a non-empty string of at most `MAX_ASK_AGENT_QUESTION_LENGTH`
 * characters.
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `question`.
 */
export function checkAskAgentQuestion(question: unknown): string {
  if (typeof question !== 'string') throw invalidArgument('question', 'must be a string');
  if (question.trim() === '') throw invalidArgument('question', 'must not be empty');
  if (question.length > MAX_ASK_AGENT_QUESTION_LENGTH) {
    throw invalidArgument(
      'question',
      `is ${question.length} characters long; at most ${MAX_ASK_AGENT_QUESTION_LENGTH} are allowed`,
    );
  }
  return question;
}

/** What {@link askAgent} needs. */
export interface AskAgentRequest {
  /** The model to ask (the agent's current one). */
  llm: LanguageModel;
  systemPrompt: string;
  /** The conversation so far (read, never written). */
  events: readonly ConversationEventWire[];
  /** The conversation's tools: their specs let the model read the tool calls of the history. */
  tools: readonly Tool[];
  question: string;
  signal?: AbortSignal | undefined;
  /** Told the model's completion and how long it took (for the conversation's stats). */
  onResponse?: ((completion: Completion, latencyMs: number) => void) | undefined;
}

/**
 * Answers a side question with the conversation's history as context, as OpenHands'
 * `ask_agent`: the transcript plus the question as a user message go to the model, which is
 * told not to call tools; tool calls it makes anyway are never run. Nothing is recorded.
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `question`) for a bad question; `LLMError`
 * when the model fails, `LLM_BAD_RESPONSE` when it answers without text; `ABORTED` when
 * `signal` fires.
 */
export async function askAgent(request: AskAgentRequest): Promise<string> {
  const question = checkAskAgentQuestion(request.question);
  const { llm, signal } = request;
  if (signal?.aborted) throw abortedError(signal);
  const messages = [
    ...buildTranscript({ systemPrompt: request.systemPrompt, events: request.events }),
    { role: 'user' as const, content: askAgentPrompt(question) },
  ];
  const started = performance.now();
  const completion = await llm.complete({
    messages,
    tools: request.tools.map(toolSpecOf),
    signal,
  });
  request.onResponse?.(completion, performance.now() - started);
  const answer = completion.message.content;
  if (answer.trim() === '') {
    throw new LLMError({
      code: 'LLM_BAD_RESPONSE',
      message: `LLM ${llm.model}: no text answer to the question`,
      details: { model: llm.model },
    });
  }
  return answer;
}
