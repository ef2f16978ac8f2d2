import { invalidArgument } from '@agent-workspace/core';
import type { AgentServerClient } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  askAgentResponseWireSchema,
  type ConversationStatsWire,
  conversationPath,
  type StreamingDeltaEventWire,
  streamingDeltaEventWireSchema,
} from '@agent-workspace/protocol';
import { checkAskAgentQuestion } from '../agent/ask-agent.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { StreamingDeltaListener } from './conversation-llm-control.js';
import { fetchConversationInfo } from './fetch-conversation-info.js';
import { expectOk } from './remote-conversation-http.js';

/** Where a remote conversation's model-control requests go. */
export interface RemoteLLMTarget {
  client: AgentServerClient;
  conversationId: string;
  /** Fires when the conversation closes (or the caller gives up). */
  signal: AbortSignal;
}

/**
 * `POST …/ask_agent` `{"question"}` → the answer. The question is checked here first (as
 * `LocalConversation.askAgent` does); the server's 500 (no answer) is a `SERVER_ERROR`.
 */
export async function postAskAgent(target: RemoteLLMTarget, question: string): Promise<string> {
  const checked = checkAskAgentQuestion(question);
  const reply = await target.client.json(
    {
      method: 'POST',
      path: conversationPath(AGENT_SERVER_ROUTES.askAgent, target.conversationId),
      json: { question: checked },
      signal: target.signal,
    },
    askAgentResponseWireSchema,
  );
  return reply.response;
}

/**
 * `POST …/switch_llm` `{"llm": model.toConfig({ includeApiKey: true })}`: the key travels (the
 * server needs it to call the model) and is never echoed. `INVALID_ARGUMENT` naming `llm` when
 * the model has no JSON form; the server's 422 for a bad config is `INVALID_ARGUMENT` too.
 */
export async function postSwitchLlm(target: RemoteLLMTarget, model: LanguageModel): Promise<void> {
  const configurable = model as Partial<{ toConfig(options?: object): object }>;
  if (typeof configurable?.toConfig !== 'function') {
    throw invalidArgument('llm', 'has no toConfig(), so it cannot travel to the agent-server');
  }
  await expectOk(target.client, {
    method: 'POST',
    path: conversationPath(AGENT_SERVER_ROUTES.switchLlm, target.conversationId),
    json: { llm: configurable.toConfig({ includeApiKey: true }) },
    signal: target.signal,
  });
}

/** The conversation's stats from `GET /api/conversations/{id}` (`{ usage_to_metrics: {} }` if none). */
export async function fetchConversationStats(
  target: RemoteLLMTarget,
): Promise<ConversationStatsWire> {
  const info = await fetchConversationInfo(target.client, target.conversationId, target.signal);
  return info.stats ?? { usage_to_metrics: {} };
}

/** The listeners of a remote conversation's `StreamingDeltaEvent` frames. */
export class RemoteStreamingDeltas {
  readonly #listeners = new Set<StreamingDeltaListener>();

  /** Calls `listener` with each streamed delta the events socket brings; returns the unsubscribe. */
  subscribe(listener: StreamingDeltaListener): () => void {
    const entry: StreamingDeltaListener = (event) => listener(event);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** A frame of the events socket: a `StreamingDeltaEvent` goes to the listeners. */
  onFrame(frame: unknown): void {
    if (this.#listeners.size === 0) return;
    if ((frame as { kind?: unknown } | null)?.kind !== 'StreamingDeltaEvent') return;
    const parsed = streamingDeltaEventWireSchema.safeParse(frame);
    if (!parsed.success) return;
    const event: StreamingDeltaEventWire = parsed.data;
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // Its own failure.
      }
    }
  }
}
