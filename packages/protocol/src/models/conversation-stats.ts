import { z } from 'zod';

/**
 * Most usage ids one conversation's stats keep apart (OpenHands has no bound); calls under
 * further ids are added to the entry {@link OVERFLOW_USAGE_ID}.
 */
export const MAX_STATS_USAGE_IDS = 32;

/** The stats entry that takes the calls of usage ids past {@link MAX_STATS_USAGE_IDS}. */
export const OVERFLOW_USAGE_ID = '(other)';

/**
 * Most per-call records (`costs`, `response_latencies`, `token_usages`) one stats entry keeps:
 * the newest. The accumulated totals count every call (OpenHands keeps every record). With
 * {@link MAX_STATS_USAGE_IDS}, a conversation's full stats stay under about 2 MB.
 */
export const MAX_STATS_RECORDS_PER_USAGE = 200;

const count = z.number().int().min(0);

/** Wire shape of OpenHands' `TokenUsage`: the tokens of one call, or accumulated. */
export const tokenUsageWireSchema = z.looseObject({
  model: z.string().default(''),
  prompt_tokens: count.default(0),
  completion_tokens: count.default(0),
  cache_read_tokens: count.default(0),
  cache_write_tokens: count.default(0),
  reasoning_tokens: count.default(0),
  context_window: count.default(0),
  /** Prompt plus completion tokens of the latest call. */
  per_turn_token: count.default(0),
  response_id: z.string().default(''),
});

/** Wire JSON of a token usage. */
export type TokenUsageWire = z.infer<typeof tokenUsageWireSchema>;

/**
 * Wire shape of OpenHands' `MetricsSnapshot`: one usage id's totals, as the `stats`
 * `ConversationStateUpdateEvent` carries them.
 */
export const metricsSnapshotWireSchema = z.looseObject({
  model_name: z.string().default('default'),
  /** In US dollars. */
  accumulated_cost: z.number().min(0).default(0),
  max_budget_per_task: z.number().nullable().default(null),
  accumulated_token_usage: tokenUsageWireSchema.nullable().default(null),
});

/** Wire JSON of a metrics snapshot. */
export type MetricsSnapshotWire = z.infer<typeof metricsSnapshotWireSchema>;

/** Wire shape of OpenHands' `Cost`: what one call cost (`timestamp` in seconds since 1970). */
export const costWireSchema = z.looseObject({
  model: z.string(),
  cost: z.number().min(0),
  timestamp: z.number(),
});

/** Wire shape of OpenHands' `ResponseLatency` (`latency` in seconds). */
export const responseLatencyWireSchema = z.looseObject({
  model: z.string(),
  latency: z.number().min(0),
  response_id: z.string(),
});

/**
 * Wire shape of OpenHands' `Metrics`: a snapshot plus the newest per-call records (at most
 * {@link MAX_STATS_RECORDS_PER_USAGE} of each), as `ConversationInfo.stats` carries them.
 */
export const metricsWireSchema = metricsSnapshotWireSchema.extend({
  costs: z.array(costWireSchema).default([]),
  response_latencies: z.array(responseLatencyWireSchema).default([]),
  token_usages: z.array(tokenUsageWireSchema).default([]),
});

/** Wire JSON of metrics. */
export type MetricsWire = z.infer<typeof metricsWireSchema>;

/**
 * Wire shape of OpenHands' `ConversationStats`: token usage and cost per usage id (`agent`,
 * `ask-agent-llm`, ...; see the sdk's `ConversationStats` for how models are kept apart).
 * `ConversationInfo.stats` has full {@link metricsWireSchema} entries, the `stats` state update
 * event {@link metricsSnapshotWireSchema} ones.
 */
export const conversationStatsWireSchema = z.looseObject({
  usage_to_metrics: z.record(z.string(), metricsWireSchema).default({}),
});

/** Wire JSON of conversation stats. */
export type ConversationStatsWire = z.infer<typeof conversationStatsWireSchema>;

/** Wire shape of the `value` of a `stats` `ConversationStateUpdateEvent`. */
export const conversationStatsSnapshotWireSchema = z.looseObject({
  usage_to_metrics: z.record(z.string(), metricsSnapshotWireSchema).default({}),
});

/** Wire JSON of conversation stats as the `stats` state update carries them. */
export type ConversationStatsSnapshotWire = z.infer<typeof conversationStatsSnapshotWireSchema>;
