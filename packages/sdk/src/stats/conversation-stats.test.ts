import {
  conversationStatsSnapshotWireSchema,
  conversationStatsWireSchema,
  MAX_STATS_RECORDS_PER_USAGE,
  MAX_STATS_USAGE_IDS,
  OVERFLOW_USAGE_ID,
} from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { ConversationStats, type ModelResponseRecord } from './conversation-stats.js';

const call = (overrides: Partial<ModelResponseRecord> = {}): ModelResponseRecord => ({
  usageId: 'agent',
  model: 'openai/gpt-4o',
  usage: { inputTokens: 100, outputTokens: 20 },
  costUsd: 0.5,
  responseId: 'resp-1',
  latencyMs: 250,
  ...overrides,
});

describe('ConversationStats', () => {
  it('gives the totals without per-call records with records: false, a copy either way', () => {
    const stats = new ConversationStats();
    stats.record(call());
    stats.record(call({ responseId: 'resp-2' }));
    const full = stats.toJSON();
    const totals = stats.toJSON({ records: false });
    expect(conversationStatsWireSchema.parse(totals)).toEqual(totals);
    const entry = totals.usage_to_metrics.agent!;
    expect(entry).toMatchObject({ costs: [], response_latencies: [], token_usages: [] });
    const { costs, response_latencies, token_usages, ...fullTotals } = full.usage_to_metrics.agent!;
    expect(costs).toHaveLength(2);
    expect(response_latencies).toHaveLength(2);
    expect(token_usages).toHaveLength(2);
    expect(entry).toEqual({ ...fullTotals, costs: [], response_latencies: [], token_usages: [] });
    // A copy: changing it changes nothing kept.
    entry.accumulated_token_usage!.prompt_tokens = -1;
    expect(stats.toJSON().usage_to_metrics.agent!.accumulated_token_usage!.prompt_tokens).toBe(200);
    // The full form's records are copies too.
    full.usage_to_metrics.agent!.accumulated_token_usage!.prompt_tokens = -1;
    costs[0]!.cost = 99;
    response_latencies.pop();
    token_usages[1]!.response_id = 'changed';
    expect(stats.toJSON()).toEqual({
      usage_to_metrics: {
        agent: {
          ...fullTotals,
          accumulated_token_usage: { ...fullTotals.accumulated_token_usage, prompt_tokens: 200 },
          costs: [expect.objectContaining({ cost: 0.5 }), expect.objectContaining({ cost: 0.5 })],
          response_latencies: [
            expect.objectContaining({ response_id: 'resp-1' }),
            expect.objectContaining({ response_id: 'resp-2' }),
          ],
          token_usages: [
            expect.objectContaining({ response_id: 'resp-1' }),
            expect.objectContaining({ response_id: 'resp-2' }),
          ],
        },
      },
    });
  });

  it('accumulates tokens, cost and per-call records per usage id, in OpenHands’ shape', () => {
    const stats = new ConversationStats();
    stats.record(call());
    stats.record(
      call({
        usage: {
          inputTokens: 50,
          outputTokens: 10,
          cacheReadTokens: 30,
          cacheWriteTokens: 5,
          reasoningTokens: 4,
        },
        costUsd: 0.25,
        responseId: 'resp-2',
        latencyMs: 1500,
      }),
    );
    const json = stats.toJSON();
    expect(conversationStatsWireSchema.parse(json)).toEqual(json);
    const agent = json.usage_to_metrics.agent!;
    expect(agent.model_name).toBe('openai/gpt-4o');
    expect(agent.accumulated_cost).toBeCloseTo(0.75);
    expect(agent.accumulated_token_usage).toMatchObject({
      prompt_tokens: 150,
      completion_tokens: 30,
      cache_read_tokens: 30,
      cache_write_tokens: 5,
      reasoning_tokens: 4,
      per_turn_token: 60,
    });
    expect(agent.costs.map((cost) => cost.cost)).toEqual([0.5, 0.25]);
    expect(agent.response_latencies).toEqual([
      { model: 'openai/gpt-4o', latency: 0.25, response_id: 'resp-1' },
      { model: 'openai/gpt-4o', latency: 1.5, response_id: 'resp-2' },
    ]);
    expect(agent.token_usages.map((usage) => usage.response_id)).toEqual(['resp-1', 'resp-2']);
  });

  it('counts an unknown or invalid cost as 0', () => {
    const stats = new ConversationStats();
    stats.record(call({ costUsd: 0 }));
    stats.record(call({ costUsd: Number.NaN }));
    stats.record(call({ costUsd: -3 }));
    expect(stats.toJSON().usage_to_metrics.agent?.accumulated_cost).toBe(0);
  });

  it('keeps a second model under the same usage id apart, and adds everything up', () => {
    const stats = new ConversationStats();
    expect(stats.record(call())).toBe('agent');
    expect(stats.record(call({ model: 'openai/gpt-4o-mini', costUsd: 0.1 }))).toBe(
      'agent:openai/gpt-4o-mini',
    );
    expect(stats.record(call())).toBe('agent');
    const entries = stats.toJSON().usage_to_metrics;
    expect(Object.keys(entries)).toEqual(['agent', 'agent:openai/gpt-4o-mini']);
    expect(entries['agent:openai/gpt-4o-mini']?.model_name).toBe('openai/gpt-4o-mini');
    const combined = stats.combined();
    expect(combined.accumulated_cost).toBeCloseTo(1.1);
    expect(combined.accumulated_token_usage?.prompt_tokens).toBe(300);
  });

  it('gives snapshots without per-call records for the state update event', () => {
    const stats = new ConversationStats();
    stats.record(call());
    const snapshot = stats.snapshot();
    expect(conversationStatsSnapshotWireSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.usage_to_metrics.agent).not.toHaveProperty('costs');
    expect(snapshot.usage_to_metrics.agent?.accumulated_token_usage?.prompt_tokens).toBe(100);
  });

  it('bounds the usage ids and the per-call records, the totals counting every call', () => {
    const stats = new ConversationStats();
    for (let index = 0; index < MAX_STATS_USAGE_IDS + 5; index++) {
      stats.record(call({ usageId: `usage-${index}` }));
    }
    const entries = stats.toJSON().usage_to_metrics;
    expect(Object.keys(entries)).toHaveLength(MAX_STATS_USAGE_IDS);
    expect(entries[OVERFLOW_USAGE_ID]?.accumulated_token_usage?.prompt_tokens).toBe(600);

    const busy = new ConversationStats();
    for (let index = 0; index < MAX_STATS_RECORDS_PER_USAGE + 10; index++) {
      busy.record(call({ responseId: `r-${index}` }));
    }
    const agent = busy.toJSON().usage_to_metrics.agent!;
    expect(agent.token_usages).toHaveLength(MAX_STATS_RECORDS_PER_USAGE);
    expect(agent.token_usages[0]?.response_id).toBe('r-10');
    expect(agent.accumulated_token_usage?.prompt_tokens).toBe(
      100 * (MAX_STATS_RECORDS_PER_USAGE + 10),
    );
  });

  it('comes back from its JSON, and from what is not stats as empty stats', () => {
    const stats = new ConversationStats();
    stats.record(call());
    const restored = ConversationStats.fromJSON(JSON.parse(JSON.stringify(stats.toJSON())));
    restored.record(call());
    expect(restored.toJSON().usage_to_metrics.agent?.accumulated_cost).toBeCloseTo(1);
    expect(ConversationStats.fromJSON(undefined).toJSON()).toEqual({ usage_to_metrics: {} });
    expect(ConversationStats.fromJSON({ usage_to_metrics: 'nope' }).toJSON()).toEqual({
      usage_to_metrics: {},
    });
  });
});
