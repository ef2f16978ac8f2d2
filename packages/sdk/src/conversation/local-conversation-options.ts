import type { Workspace } from '@agent-workspace/core';
import type { ConversationExecutionStatus } from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';

/** Options of {@link LocalConversation.create}. */
export interface LocalConversationOptions {
  agent: Agent;
  /** Where the tools act. Not closed by the conversation: it belongs to the caller. */
  workspace: Workspace;
  /**
   * Directory for the conversation's `state.json` and `events.jsonl`, created if missing; it
   * must not hold a conversation already. Without it the conversation lives in memory only.
   */
  persistenceDir?: string | undefined;
  /**
   * Ends a run with status `stuck` when the agent repeats the same action with the same result
   * (or the same failure) `threshold` times in a row. Default on, threshold 4; `false` turns it off.
   */
  stuckDetection?: boolean | { threshold: number } | undefined;
}

/** Options of {@link LocalConversation.open}. */
export interface OpenLocalConversationOptions extends LocalConversationOptions {
  /** The directory a conversation was created in. */
  persistenceDir: string;
}

/** Where a conversation stands. */
export interface LocalConversationState {
  readonly id: string;
  readonly executionStatus: ConversationExecutionStatus;
}
