import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import type { AgentServerClient } from './agent-server-client.js';

/** One row of the conversation list. */
export interface ConversationRow {
  readonly id: string;
  readonly title: string | null;
  readonly status: string;
  /** The model's id (`scripted` for a scripted model), or `null` when the server does not say. */
  readonly model: string | null;
  readonly updatedAt: string;
  /** Accumulated cost in USD over every model of the conversation. */
  readonly cost: number;
  /** The working directory of the conversation's workspace, or `null` when not local to the server. */
  readonly workingDir: string | null;
}

/** Most conversations the list shows (the newest first). */
export const MAX_LISTED_CONVERSATIONS = 100;

interface ConversationInfoJson {
  id?: unknown;
  title?: unknown;
  execution_status?: unknown;
  updated_at?: unknown;
  agent?: { llm?: { model?: unknown; kind?: unknown } };
  workspace?: { working_dir?: unknown };
  stats?: { usage_to_metrics?: Record<string, { accumulated_cost?: unknown }> };
}

/** The model a conversation's info names. */
export function modelOf(info: ConversationInfoJson): string | null {
  const llm = info.agent?.llm;
  if (typeof llm?.model === 'string') return llm.model;
  return llm?.kind === 'ScriptedLLM' ? 'scripted' : null;
}

/** The accumulated cost of every model of a conversation's info. */
export function costOf(info: ConversationInfoJson): number {
  let cost = 0;
  for (const metrics of Object.values(info.stats?.usage_to_metrics ?? {})) {
    if (typeof metrics.accumulated_cost === 'number') cost += metrics.accumulated_cost;
  }
  return cost;
}

/** A conversation's info (`GET /api/conversations/search` item) as a list row. */
export function conversationRowOf(info: ConversationInfoJson): ConversationRow {
  return {
    id: String(info.id),
    title: typeof info.title === 'string' ? info.title : null,
    status: String(info.execution_status ?? 'unknown'),
    model: modelOf(info),
    updatedAt: String(info.updated_at ?? ''),
    cost: costOf(info),
    workingDir: typeof info.workspace?.working_dir === 'string' ? info.workspace.working_dir : null,
  };
}

/** The newest {@link MAX_LISTED_CONVERSATIONS} conversations. */
export async function listConversations(
  client: AgentServerClient,
  signal?: AbortSignal,
): Promise<ConversationRow[]> {
  const body = await client.json<{ items?: ConversationInfoJson[] }>(
    AGENT_SERVER_ROUTES.searchConversations,
    { query: { limit: MAX_LISTED_CONVERSATIONS, sort_order: 'UPDATED_AT_DESC' }, signal },
  );
  return (body.items ?? []).map(conversationRowOf);
}
