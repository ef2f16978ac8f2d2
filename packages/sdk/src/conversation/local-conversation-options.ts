import { randomUUID } from 'node:crypto';
import { type ActionExecutor, invalidArgument, type Workspace } from '@agent-workspace/core';
import type { ConversationExecutionStatus, ConversationStatsWire } from '@agent-workspace/protocol';
import type { Agent } from '../agent/agent.js';
import type { ConversationSecrets } from '../secrets/conversation-secrets.js';
import type { ConfirmationPolicyInput } from '../security/confirmation-policy.js';
import type { SecurityAnalyzerOption } from '../security/security-analyzer.js';
import { ConversationStats } from '../stats/conversation-stats.js';
import {
  type ConfirmationSettings,
  persistedConfirmationSettings,
} from './confirmation-control.js';
import {
  type ConversationHistoryLimits,
  resolveHistoryLimits,
} from './conversation-history-limits.js';
import { conversationToolsOf, type UnavailableTool } from './conversation-tools.js';
import type { PersistedConversationSummary } from './inspect-persisted-conversation.js';
import { stuckThresholdOf } from './stuck-detector.js';

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
   * Bounds on the history: the largest event (256 KiB; larger ones are cut with a marker), the
   * event bytes kept in memory (8 MiB: what `events` lists and the agent is shown) and on disk
   * (64 MiB). See {@link ConversationHistoryLimits}.
   */
  history?: ConversationHistoryLimits | undefined;
  /** The id of a new conversation (a dashed UUID); default a random one. */
  conversationId?: string | undefined;
  /**
   * Ends a run with status `stuck` when the agent repeats the same action with the same result
   * (or the same failure) `threshold` times in a row. Default on, threshold 4; `false` turns it off.
   */
  stuckDetection?: boolean | { threshold: number } | undefined;
  /**
   * Runs the runtime plugins' actions of the agent's browser and IPython tools (an agent-server
   * passes its own plugin host). Without it they act through the workspace when it is an
   * executor (remote, Docker, Runtime API); a workspace on this machine without an agent-server
   * gets a local plugin host with just the plugins its tools need, started at the first run and
   * closed with the conversation. `null`: no runtime plugins, those tools are left out. A given
   * executor is not closed by the conversation.
   */
  actions?: ActionExecutor | null | undefined;
  /**
   * Told of each tool not offered to the model (its plugin is not there), once, at the first
   * run; also listed by `unavailableTools`. Default a process warning
   * (`AGENT_WORKSPACE_TOOL_UNAVAILABLE`).
   */
  onToolUnavailable?: ((tool: UnavailableTool) => void) | undefined;
  /**
   * The conversation's secrets (default a new, empty registry). Pass one to keep them when the
   * conversation is closed and reopened in this process (an agent-server does); they are never
   * persisted.
   */
  secrets?: ConversationSecrets | undefined;
  /**
   * When a step's actions wait for the user: `{ kind: 'NeverConfirm' }` (default),
   * `AlwaysConfirm`, or `ConfirmRisky` with a `threshold`. `open()` keeps the persisted one
   * unless given. README "Confirmation mode".
   */
  confirmationPolicy?: ConfirmationPolicyInput | undefined;
  /**
   * Rates each action's `security_risk`: `{ kind: 'PatternSecurityAnalyzer' }`, your own
   * `SecurityAnalyzer` or function, or `null` (default: none, every action `UNKNOWN`). `open()`
   * keeps a persisted pattern analyzer unless given; one given in code must be given again.
   */
  securityAnalyzer?: SecurityAnalyzerOption | undefined;
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

/** What {@link LocalConversation.inspect} reads of a persisted conversation. */
export interface PersistedLocalConversation {
  readonly id: string;
  /** As `open` would give it: `running` reads `paused`. */
  readonly executionStatus: ConversationExecutionStatus;
  /** The agent's JSON, without API keys. */
  readonly agent: Record<string, unknown> | null;
  readonly createdAt: string;
  /** The time of the last event (of the last state change when there is none). */
  readonly updatedAt: string;
  /** Token usage and cost per usage id, as `LocalConversation.stats()` gives it. */
  readonly stats: ConversationStatsWire;
  /** The confirmation policy and security analyzer kind, as `LocalConversation.confirmation`. */
  readonly confirmation: ConfirmationSettings;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What `LocalConversation.create` and `open` make of their options first: the stuck threshold,
 * the history bounds and the tools (bad options throw here, naming the field).
 */
export function prepareConversation(
  options: LocalConversationOptions | OpenLocalConversationOptions,
) {
  return {
    stuckThreshold: stuckThresholdOf(options.stuckDetection),
    limits: resolveHistoryLimits(options.history),
    tools: conversationToolsOf(options),
  };
}

/**
 * The id of a new conversation: `conversationId`, or a new UUID.
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `conversationId`) unless a dashed UUID.
 */
export function conversationIdOf(options: LocalConversationOptions): string {
  const id = options.conversationId ?? randomUUID();
  if (!UUID_PATTERN.test(id)) throw invalidArgument('conversationId', 'must be a dashed UUID');
  return id;
}

/** The status a persisted conversation comes back with: a run its process lost is `paused`. */
export function resumedStatus(status: ConversationExecutionStatus): ConversationExecutionStatus {
  return status === 'running' ? 'paused' : status;
}

/** What `LocalConversation.inspect` answers of a store's state and last event time. */
export function persistedSummaryOf(
  summary: PersistedConversationSummary,
): PersistedLocalConversation {
  const { state, lastEventAt } = summary;
  return {
    id: state.id,
    executionStatus: resumedStatus(state.execution_status),
    agent: state.agent,
    createdAt: state.created_at,
    updatedAt: lastEventAt ?? state.updated_at,
    stats: ConversationStats.fromJSON(state.stats).toJSON(),
    confirmation: persistedConfirmationSettings(state),
  };
}
