import type { Workspace } from '@agent-workspace/core';
import type { ConversationExecutionStatus } from '@agent-workspace/protocol';
import type { ConversationEvents } from './conversation-events.js';

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
  /** Pauses the run in progress, if any. */
  pause(): Promise<void>;
  /** The agent's last word; `''` if none. Await it: remote conversations ask their server. */
  agentFinalResponse(): string | Promise<string>;
  /** Releases what the conversation holds (not the workspace). Idempotent. */
  close(): Promise<void>;
}
