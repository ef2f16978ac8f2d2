import { invalidArgument } from '@agent-workspace/core';
import {
  CONVERSATION_STATE_KEYS,
  type ConversationEventWire,
  type StreamingDeltaEventWire,
} from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';
import { ASK_AGENT_USAGE_ID, askAgent } from '../agent/ask-agent.js';
import type { CondenserResponseListener } from '../condenser/condenser.js';
import { newEventBase } from '../events/new-event-base.js';
import type { Completion, LanguageModel } from '../llm/language-model.js';
import type { StreamDelta } from '../llm/stream-completion.js';
import { ConversationStats } from '../stats/conversation-stats.js';
import type { Tool } from '../tools/tool.js';

/** Options of `LocalConversation.askAgent`. */
export interface AskAgentOptions {
  /** Cancels the model call (`ABORTED`). */
  signal?: AbortSignal | undefined;
}

/** Makes maskers of streamed text (a conversation's `ConversationSecrets`). */
export interface StreamMaskerSource {
  /** A masker for one stream of chunks: a secret split across chunks is masked too. */
  streamMasker(): { push(chunk: string): string; flush(): string };
}

/** The deltas of one model call, masked across pieces; `end()` when the call has answered. */
export interface DeltaStream {
  push(delta: StreamDelta): void;
  /** Publishes what the maskers held back (the answer is complete). */
  end(): void;
}

/** Told each `StreamingDeltaEvent` of a conversation as the model's answer streams in. */
export type StreamingDeltaListener = (event: StreamingDeltaEventWire) => void;

/** Options of {@link ConversationLLMControl}. */
export interface ConversationLLMControlOptions {
  /** The persisted state's `stats`, if any. */
  stats?: unknown;
  /** Records an event in the conversation. */
  record: (event: ConversationEventWire) => void;
  /** Persists the conversation's state (it carries the stats). */
  saveState: () => void;
}

/** The usage id the condenser's model calls are accounted under (OpenHands'). */
export const CONDENSER_USAGE_ID = 'condenser';

/** Options of {@link ConversationLLMControl.recordResponse}. */
export interface RecordResponseOptions {
  /** Accounts to this usage id instead of the model's. */
  usageId?: string | undefined;
  /** Records a `stats` `ConversationStateUpdateEvent` (agent steps do; side questions do not). */
  event: boolean;
}

/** The usage id of a model: its `usageId` (an `LLM`, a `ScriptedLLM`), else `default`. */
export function usageIdOf(model: LanguageModel): string {
  const { usageId } = model as { usageId?: unknown };
  return typeof usageId === 'string' && usageId !== '' ? usageId : 'default';
}

/**
 * A `LocalConversation`'s model bookkeeping: its {@link ConversationStats} and the listeners of
 * its streamed deltas. Deltas are transient, as in OpenHands: listeners get them as they
 * arrive, nothing records them.
 */
export class ConversationLLMControl {
  /** The conversation's usage and cost. */
  readonly stats: ConversationStats;
  readonly #options: ConversationLLMControlOptions;
  readonly #deltaListeners = new Set<StreamingDeltaListener>();

  constructor(options: ConversationLLMControlOptions) {
    this.#options = options;
    this.stats = ConversationStats.fromJSON(options.stats);
  }

  /** Calls `listener` with each streamed delta from now on; returns the unsubscribe. */
  subscribeDeltas(listener: StreamingDeltaListener): () => void {
    const entry: StreamingDeltaListener = (event) => listener(event);
    this.#deltaListeners.add(entry);
    return () => {
      this.#deltaListeners.delete(entry);
    };
  }

  /**
   * The deltas of one model call, published through `secrets`' stream maskers (a secret value
   * split across two pieces is masked too: text that could begin one is held back until the
   * next piece or `end()`).
   */
  deltaStream(secrets?: StreamMaskerSource): DeltaStream {
    const content = secrets?.streamMasker();
    const reasoning = secrets?.streamMasker();
    const masked = (text: string | undefined, masker: typeof content) =>
      text === undefined || masker === undefined ? text : masker.push(text);
    return {
      push: (delta) =>
        this.publishDelta({
          content: masked(delta.content, content),
          reasoningContent: masked(delta.reasoningContent, reasoning),
        }),
      end: () =>
        this.publishDelta({ content: content?.flush(), reasoningContent: reasoning?.flush() }),
    };
  }

  /**
   * Tells the listeners a delta, as a `StreamingDeltaEvent` (nothing when it carries no text);
   * a listener's failure is its own. Unmasked: see {@link ConversationLLMControl.deltaStream}.
   */
  publishDelta(delta: StreamDelta): void {
    if (this.#deltaListeners.size === 0) return;
    if (!delta.content && !delta.reasoningContent) return;
    const event: StreamingDeltaEventWire = {
      kind: 'StreamingDeltaEvent',
      ...newEventBase(),
      source: 'agent',
      content: delta.content ?? null,
      reasoning_content: delta.reasoningContent ?? null,
    };
    for (const listener of [...this.#deltaListeners]) {
      try {
        listener(event);
      } catch {
        // Its own failure.
      }
    }
  }

  /**
   * Records that the agent changed (`switchLlm`): a `ConversationStateUpdateEvent` `key:
   * "agent"` with its JSON (never an API key), as OpenHands' state sends one.
   */
  recordAgentChange(agentConfig: Record<string, unknown> | null): void {
    this.#options.record({
      kind: 'ConversationStateUpdateEvent',
      ...newEventBase(),
      source: 'environment',
      key: CONVERSATION_STATE_KEYS.agent,
      value: agentConfig,
    });
  }

  /**
   * What accounts the condenser's summarising calls, under {@link CONDENSER_USAGE_ID} (as
   * OpenHands' condenser LLM), each followed by a `stats` state update.
   */
  condenserListener(): CondenserResponseListener {
    return (model, completion, latencyMs) =>
      this.recordResponse(model, completion, latencyMs, {
        usageId: CONDENSER_USAGE_ID,
        event: true,
      });
  }

  /**
   * Accounts one model response in the stats, records the `stats` state update when asked
   * (OpenHands sends one after each response of the agent's model) and persists the state.
   */
  recordResponse(
    model: LanguageModel,
    completion: Completion,
    latencyMs: number,
    options: RecordResponseOptions,
  ): void {
    this.stats.record({
      usageId: options.usageId ?? usageIdOf(model),
      model: model.model,
      usage: completion.usage,
      costUsd: completion.costUsd ?? 0,
      responseId: completion.id,
      latencyMs,
    });
    if (options.event) {
      this.#options.record({
        kind: 'ConversationStateUpdateEvent',
        ...newEventBase(),
        source: 'environment',
        key: CONVERSATION_STATE_KEYS.stats,
        value: this.stats.snapshot(),
      });
    }
    this.#options.saveState();
  }
}

/**
 * The agent a conversation runs on after `switchLlm(llm)`: the same agent on `llm`.
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `llm`) when `llm` is not a model.
 */
export function switchedAgent(agent: Agent, llm: LanguageModel): Agent {
  const candidate = llm as Partial<LanguageModel> | null | undefined;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.complete !== 'function' ||
    typeof candidate.model !== 'string'
  ) {
    throw invalidArgument('llm', 'must be a model (an LLM, a ScriptedLLM or a LanguageModel)');
  }
  return agent.withLLM(llm);
}

/** What {@link askConversationAgent} asks with. */
export interface AskConversationAgentRequest {
  agent: Agent;
  events: readonly ConversationEventWire[];
  tools: readonly Tool[];
  question: string;
  signal: AbortSignal | undefined;
}

/**
 * A side question to the conversation's agent (see `askAgent`), its usage accounted under
 * `ask-agent-llm` (OpenHands' usage id) with no event recorded.
 */
export function askConversationAgent(
  control: ConversationLLMControl,
  request: AskConversationAgentRequest,
): Promise<string> {
  const { agent } = request;
  return askAgent({
    llm: agent.llm,
    systemPrompt: agent.systemPrompt,
    events: request.events,
    tools: request.tools,
    question: request.question,
    signal: request.signal,
    onResponse: (completion, latencyMs) =>
      control.recordResponse(agent.llm, completion, latencyMs, {
        usageId: ASK_AGENT_USAGE_ID,
        event: false,
      }),
  });
}
