import type { Workspace } from '@agent-workspace/core';
import type { ConversationExecutionStatus, ConversationStatsWire } from '@agent-workspace/protocol';
import type { LanguageModel } from '../llm/language-model.js';
import type { ConfirmationPolicyInput } from '../security/confirmation-policy.js';
import type { ConfirmationResponse } from './confirmation-control.js';
import type { ConversationEvents } from './conversation-events.js';
import type { AskAgentOptions, StreamingDeltaListener } from './conversation-llm-control.js';

/** Where a conversation stands. */
export interface ConversationState {
  readonly id: string;
  readonly executionStatus: ConversationExecutionStatus;
}

/** Options of {@link BaseConversation.run}. */
export interface ConversationRunOptions {
  /** Pauses the run when it fires. */
  signal?: AbortSignal | undefined;
}

/**
 * What every conversation offers, whether its agent loop runs in this process
 * (`LocalConversation`) or on an agent-server (`RemoteConversation`). `Conversation()` returns
 * one of the two behind this type.
 */
export interface BaseConversation extends AsyncDisposable {
  /** Conversation id (a dashed UUID). */
  readonly id: string;
  /** Where the tools act; not closed by the conversation. */
  readonly workspace: Workspace;
  /**
   * The events, oldest first, with `subscribe()` for new ones (a `LocalConversation` keeps its
   * newest here, within its history's `maxMemoryBytes`).
   */
  readonly events: ConversationEvents;
  /** The conversation's id and execution status, as of now. */
  readonly state: ConversationState;
  /** Records a user message; the next (or current) run reads it. */
  sendMessage(text: string): Promise<void>;
  /** Runs the agent and resolves to the status the run ended with. */
  run(options?: ConversationRunOptions): Promise<ConversationExecutionStatus>;
  /** Pauses the run in progress, if any, once its step in flight is done. */
  pause(): Promise<void>;
  /** Interrupts the run in progress, if any, cancelling the model call or tool in flight. */
  interrupt(): Promise<void>;
  /** Forces a condensation of the history the model is shown (the agent needs a condenser). */
  condense(): Promise<void>;
  /** Sets the conversation's title (1 to 200 characters). */
  setTitle(title: string): Promise<void>;
  /** Token usage and cost per usage id (OpenHands' `ConversationStats`); await it. */
  stats(): ConversationStatsWire | Promise<ConversationStatsWire>;
  /** Runs the agent's next model calls on `llm` (a call in flight finishes on the old one). */
  switchLlm(llm: LanguageModel): Promise<void>;
  /** A side question answered with the history as context; no tools run, no events recorded. */
  askAgent(question: string, options?: AskAgentOptions): Promise<string>;
  /** Calls `listener` with each streamed `StreamingDeltaEvent` (transient); returns the unsubscribe. */
  subscribeStreamingDeltas(listener: StreamingDeltaListener): () => void;
  /** Sets the confirmation policy (README "Confirmation mode"). */
  setConfirmationPolicy(policy: ConfirmationPolicyInput): Promise<void>;
  /** Sets the security analyzer: `{ kind: 'PatternSecurityAnalyzer' }` or `null` (none). */
  setSecurityAnalyzer(analyzer: { kind: string } | null): Promise<void>;
  /** Accepts (they run) or rejects (they never run) the actions waiting for confirmation. */
  respondToConfirmation(response: ConfirmationResponse): Promise<ConversationExecutionStatus>;
  /** The agent's last word; `''` if none. Await it: remote conversations ask their server. */
  agentFinalResponse(): string | Promise<string>;
  /** Releases what the conversation holds (not the workspace). Idempotent. */
  close(): Promise<void>;
}
