import type { Workspace } from '@agent-workspace/core';
import type {
  ConversationEventWire,
  ConversationExecutionStatus,
  StreamingDeltaEventWire,
} from '@agent-workspace/protocol';
import type { ConversationSecrets, LocalConversation } from '@agent-workspace/sdk';
import type { ConversationMeta } from './conversation-meta.js';
import type { EventPageCursors } from './search-conversation-events.js';

/** A conversation the server knows: its metadata always, its events while it is loaded. */
export interface ConversationRecord {
  readonly meta: ConversationMeta;
  /** Its directory, when the server has a state dir. */
  readonly dir: string | undefined;
  /** Its status while it is not loaded. */
  status: ConversationExecutionStatus;
  /** Time of its last event (or change of title or tags). */
  updatedAt: string;
  /** The conversation in memory, while it is loaded. */
  loaded: HeldConversation | undefined;
  /** Requests using it now: it is neither unloaded nor deleted under them. */
  leases: number;
  /** When it was last used, in uses counted by the service (for unloading the oldest). */
  lastUsed: number;
  /** Deleted: new requests no longer find it. */
  deleted: boolean;
  /**
   * Its secrets, in memory only: they outlive unloading (the conversation is reopened with them)
   * but not the server (`conversation-secrets-of.ts`).
   */
  secrets: ConversationSecrets | undefined;
}

/** A loaded conversation. */
export interface HeldConversation {
  readonly record: ConversationRecord;
  readonly conversation: LocalConversation;
  readonly workspace: Workspace;
  /** The run going on, if any. */
  run: Promise<void> | undefined;
  /** Places of the `next_page_id`s its event pages gave out. */
  readonly cursors: EventPageCursors;
}

/**
 * Told each event of a conversation, each streamed delta (transient) and a `full_state`
 * snapshot after each run.
 */
export type ConversationWatcher = (event: ConversationEventWire | StreamingDeltaEventWire) => void;

/** A record of a conversation that is neither loaded nor used yet. */
export function conversationRecord(
  fields: Pick<ConversationRecord, 'meta' | 'dir' | 'status' | 'updatedAt' | 'lastUsed'> &
    Partial<Pick<ConversationRecord, 'secrets'>>,
): ConversationRecord {
  return { secrets: undefined, ...fields, loaded: undefined, leases: 0, deleted: false };
}
