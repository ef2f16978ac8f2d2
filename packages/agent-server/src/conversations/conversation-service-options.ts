import type { ActionExecutor, Workspace } from '@agent-workspace/core';
import type { PathWalker } from '@agent-workspace/core/internal';
import type { FastifyBaseLogger } from 'fastify';

/** Default `history.maxEventBytes`: 256 KiB. */
export const DEFAULT_CONVERSATION_MAX_EVENT_BYTES = 256 * 1024;

/** Default `history.maxMemoryBytes`: 8 MiB. */
export const DEFAULT_CONVERSATION_MAX_MEMORY_BYTES = 8 * 1024 ** 2;

/** Default `history.maxDiskBytes`: 64 MiB. */
export const DEFAULT_CONVERSATION_MAX_DISK_BYTES = 64 * 1024 ** 2;

/** Smallest `history.maxEventBytes` (the sdk's floor). */
export const MIN_CONVERSATION_MAX_EVENT_BYTES = 16 * 1024;

/** Default `maxLoadedConversations`. */
export const DEFAULT_MAX_LOADED_CONVERSATIONS = 32;

/** What the service asks for a conversation's workspace. */
export interface ConversationWorkspaceRequest {
  /** The conversation's `workspace.working_dir`, resolved and checked. */
  workingDir: string;
  conversationId: string;
}

/** Per-conversation history bounds (sizes of events as JSON lines). */
export interface ConversationHistoryOptions {
  /**
   * Largest single event; a larger one (a huge observation) is cut, its longest strings keeping
   * head and tail around a `[... N bytes cut ...]` marker. Default 256 KiB, at least 16 KiB.
   */
  maxEventBytes?: number | undefined;
  /**
   * Event bytes a loaded conversation keeps in memory: its newest events, which are also what its
   * agent is shown. Default 8 MiB, at least `maxEventBytes`.
   */
  maxMemoryBytes?: number | undefined;
  /**
   * Bytes of a conversation's `events.jsonl`; past it the file is compacted (streamed) to its
   * newest events filling three quarters of it, and older events are gone. Default 64 MiB, at
   * least `maxMemoryBytes`.
   */
  maxDiskBytes?: number | undefined;
}

/** Options of `ConversationService`. */
export interface ConversationServiceOptions {
  /** Resolves and confines `workspace.working_dir`. */
  paths: PathWalker;
  /** Where conversations are persisted; unset keeps them in memory. */
  stateDir: string | undefined;
  log: FastifyBaseLogger;
  /**
   * The server's runtime plugins, which run the browser and IPython tools of its conversations;
   * `null` when the server has none (those tools are then left out).
   */
  actions: () => ActionExecutor | null;
  /**
   * Makes the workspace a conversation's tools act through, when it is created or loaded again;
   * the service closes it when the conversation is deleted, unloaded or the service closes.
   */
  workspace: (request: ConversationWorkspaceRequest) => Workspace;
  /** History bounds of each conversation; see {@link ConversationHistoryOptions}. */
  history?: ConversationHistoryOptions | undefined;
  /**
   * Most persisted conversations kept loaded (events in memory, workspace open) when idle: past
   * it the least recently used idle ones (no run, no request, no events socket) are unloaded,
   * and loaded again on their next use. Default {@link DEFAULT_MAX_LOADED_CONVERSATIONS}.
   */
  maxLoadedConversations?: number | undefined;
}

/** The history bounds with their defaults; throws naming the option when they are out of order. */
export function resolveConversationHistory(
  history: ConversationHistoryOptions = {},
): Required<{ [K in keyof ConversationHistoryOptions]: number }> {
  const resolved = {
    maxEventBytes: history.maxEventBytes ?? DEFAULT_CONVERSATION_MAX_EVENT_BYTES,
    maxMemoryBytes: history.maxMemoryBytes ?? DEFAULT_CONVERSATION_MAX_MEMORY_BYTES,
    maxDiskBytes: history.maxDiskBytes ?? DEFAULT_CONVERSATION_MAX_DISK_BYTES,
  };
  const floors = [
    ['maxEventBytes', MIN_CONVERSATION_MAX_EVENT_BYTES, String(MIN_CONVERSATION_MAX_EVENT_BYTES)],
    ['maxMemoryBytes', resolved.maxEventBytes, 'maxEventBytes'],
    ['maxDiskBytes', resolved.maxMemoryBytes, 'maxMemoryBytes'],
  ] as const;
  for (const [field, floor, floorName] of floors) {
    const value = resolved[field];
    if (!Number.isSafeInteger(value) || value < floor) {
      throw new RangeError(`history.${field} must be an integer of at least ${floorName}`);
    }
  }
  return resolved;
}
