import {
  type ConversationStatsSnapshotWire,
  type ConversationStatsWire,
  conversationStatsWireSchema,
  MAX_STATS_RECORDS_PER_USAGE,
  MAX_STATS_USAGE_IDS,
  type MetricsSnapshotWire,
  type MetricsWire,
  OVERFLOW_USAGE_ID,
  type TokenUsageWire,
} from '@agent-workspace/protocol';
import type { TokenUsage } from '../llm/language-model.js';

/** One model response to account for. */
export interface ModelResponseRecord {
  /** Who the usage is accounted to (the model's `usageId`; `default` when it has none). */
  usageId: string;
  /** The model's id, e.g. `openai/gpt-4o` or `scripted`. */
  model: string;
  usage: TokenUsage;
  /** In US dollars; 0 when the model's prices are unknown. */
  costUsd: number;
  responseId: string;
  /** Time the call took, in ms. */
  latencyMs: number;
}

/**
 * Token usage and cost of a conversation per usage id, OpenHands' `ConversationStats`
 * (`usage_to_metrics`, each entry a `Metrics`). Entries are keyed by usage id; a usage id whose
 * model changed (`switchLlm` to another model under the same usage id) keeps each model apart:
 * the first model under the plain usage id, a later one under `<usage id>:<model>`. At most
 * `MAX_STATS_USAGE_IDS` entries (further calls count in `OVERFLOW_USAGE_ID`); each keeps its
 * newest `MAX_STATS_RECORDS_PER_USAGE` per-call records, its totals counting every call.
 */
export class ConversationStats {
  readonly #entries = new Map<string, MetricsWire>();

  /**
   * Stats from their JSON form (a persisted state's `stats`). What is not stats JSON gives
   * empty stats: usage is worth less than the conversation that carries it.
   */
  static fromJSON(json: unknown): ConversationStats {
    const stats = new ConversationStats();
    const parsed = conversationStatsWireSchema.safeParse(json ?? {});
    if (!parsed.success) return stats;
    for (const [key, metrics] of Object.entries(parsed.data.usage_to_metrics)) {
      if (stats.#entries.size >= MAX_STATS_USAGE_IDS) break;
      stats.#entries.set(key, trimRecords(metrics));
    }
    return stats;
  }

  /** Adds one model response; returns the key it was accounted under. */
  record(response: ModelResponseRecord): string {
    const key = this.#keyOf(response.usageId, response.model);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = emptyMetrics(response.model);
      this.#entries.set(key, entry);
    }
    const { usage } = response;
    const cost = Number.isFinite(response.costUsd) && response.costUsd > 0 ? response.costUsd : 0;
    const call: TokenUsageWire = {
      model: entry.model_name,
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      cache_read_tokens: usage.cacheReadTokens ?? 0,
      cache_write_tokens: usage.cacheWriteTokens ?? 0,
      reasoning_tokens: usage.reasoningTokens ?? 0,
      context_window: 0,
      per_turn_token: usage.inputTokens + usage.outputTokens,
      response_id: response.responseId,
    };
    entry.accumulated_cost += cost;
    entry.costs.push({ model: entry.model_name, cost, timestamp: Date.now() / 1000 });
    entry.response_latencies.push({
      model: entry.model_name,
      latency: Math.max(0, response.latencyMs) / 1000,
      response_id: response.responseId,
    });
    entry.token_usages.push(call);
    const total = entry.accumulated_token_usage ?? emptyUsage(entry.model_name);
    entry.accumulated_token_usage = {
      ...total,
      prompt_tokens: total.prompt_tokens + call.prompt_tokens,
      completion_tokens: total.completion_tokens + call.completion_tokens,
      cache_read_tokens: total.cache_read_tokens + call.cache_read_tokens,
      cache_write_tokens: total.cache_write_tokens + call.cache_write_tokens,
      reasoning_tokens: total.reasoning_tokens + call.reasoning_tokens,
      per_turn_token: call.per_turn_token,
    };
    this.#entries.set(key, trimRecords(entry));
    return key;
  }

  /**
   * The full form (`ConversationInfo.stats`, the persisted state), a copy; with
   * `records: false` the per-call record lists are empty (totals only, without copying them).
   */
  toJSON({ records = true }: { records?: boolean } = {}): ConversationStatsWire {
    // Spread copies: the records made here hold primitives only, and `structuredClone` of a few
    // hundred records cost milliseconds on each of a step's several state saves.
    const entries = [...this.#entries].map(([key, entry]): [string, MetricsWire] => [
      key,
      {
        ...entry,
        accumulated_token_usage: entry.accumulated_token_usage && {
          ...entry.accumulated_token_usage,
        },
        costs: records ? entry.costs.map((cost) => ({ ...cost })) : [],
        response_latencies: records
          ? entry.response_latencies.map((latency) => ({ ...latency }))
          : [],
        token_usages: records ? entry.token_usages.map((usage) => ({ ...usage })) : [],
      },
    ]);
    return { usage_to_metrics: Object.fromEntries(entries) };
  }

  /** The snapshot form, without per-call records (the `stats` state update event's value). */
  snapshot(): ConversationStatsSnapshotWire {
    const entries = [...this.#entries].map(([key, entry]): [string, MetricsSnapshotWire] => [
      key,
      {
        model_name: entry.model_name,
        accumulated_cost: entry.accumulated_cost,
        max_budget_per_task: entry.max_budget_per_task,
        accumulated_token_usage: structuredClone(entry.accumulated_token_usage),
      },
    ]);
    return { usage_to_metrics: Object.fromEntries(entries) };
  }

  /** Every entry added up (OpenHands' `get_combined_metrics`), as a snapshot. */
  combined(): MetricsSnapshotWire {
    const total = emptyUsage('');
    let cost = 0;
    for (const entry of this.#entries.values()) {
      cost += entry.accumulated_cost;
      const usage = entry.accumulated_token_usage;
      if (usage === null) continue;
      total.prompt_tokens += usage.prompt_tokens;
      total.completion_tokens += usage.completion_tokens;
      total.cache_read_tokens += usage.cache_read_tokens;
      total.cache_write_tokens += usage.cache_write_tokens;
      total.reasoning_tokens += usage.reasoning_tokens;
    }
    return {
      model_name: 'default',
      accumulated_cost: cost,
      max_budget_per_task: null,
      accumulated_token_usage: total,
    };
  }

  #keyOf(usageId: string, model: string): string {
    const plain = this.#entries.get(usageId);
    if (plain === undefined || plain.model_name === model) {
      return plain !== undefined || this.#hasRoom() ? usageId : OVERFLOW_USAGE_ID;
    }
    const byModel = `${usageId}:${model}`;
    return this.#entries.has(byModel) || this.#hasRoom() ? byModel : OVERFLOW_USAGE_ID;
  }

  #hasRoom(): boolean {
    // One place stays free for the overflow entry.
    return this.#entries.size < MAX_STATS_USAGE_IDS - 1;
  }
}

function emptyUsage(model: string): TokenUsageWire {
  return {
    model,
    prompt_tokens: 0,
    completion_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    context_window: 0,
    per_turn_token: 0,
    response_id: '',
  };
}

function emptyMetrics(model: string): MetricsWire {
  return {
    model_name: model,
    accumulated_cost: 0,
    max_budget_per_task: null,
    accumulated_token_usage: emptyUsage(model),
    costs: [],
    response_latencies: [],
    token_usages: [],
  };
}

/** Keeps the newest `MAX_STATS_RECORDS_PER_USAGE` records of each list. */
function trimRecords(entry: MetricsWire): MetricsWire {
  const newest = <T>(list: T[]): T[] => list.slice(-MAX_STATS_RECORDS_PER_USAGE);
  return {
    ...entry,
    costs: newest(entry.costs),
    response_latencies: newest(entry.response_latencies),
    token_usages: newest(entry.token_usages),
  };
}
