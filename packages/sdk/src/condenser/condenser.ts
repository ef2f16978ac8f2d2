import { randomUUID } from 'node:crypto';
import { WorkspaceError } from '@agent-workspace/core';
import type { CondensationEventWire } from '@agent-workspace/protocol';
import { newEventBase } from '../events/new-event-base.js';
import type { Completion, LanguageModel } from '../llm/language-model.js';
import { cutPoints, nextCutPoint, type ViewEvent } from './condensation-view.js';
import {
  type CondenserConfig,
  DEFAULT_CONDENSER_KEEP_FIRST,
  DEFAULT_CONDENSER_MAX_SIZE,
} from './condenser-config.js';
import { summarizingPrompt } from './summarizing-prompt.js';

/** What a condenser is asked to look at. */
export interface CondenseRequest {
  /** The view (recorded condensations applied), oldest first. */
  view: readonly ViewEvent[];
  /** True when someone asked for a condensation (`condense()`): it must happen now. */
  requested: boolean;
  signal?: AbortSignal | undefined;
  /** Told each response of a summarising model and how long it took (for the stats). */
  onLLMResponse?: CondenserResponseListener | undefined;
}

/** Told a condenser's model response, with the model and the call's time in milliseconds. */
export type CondenserResponseListener = (
  model: LanguageModel,
  completion: Completion,
  latencyMs: number,
) => void;

/** Turns a long view into a `Condensation`, or says none is needed. */
export interface Condenser {
  readonly kind: CondenserConfig['kind'];
  /** True when the condenser can answer `condense()` (OpenHands' `handles_condensation_requests`). */
  readonly handlesRequests: boolean;
  /**
   * The condensation to record now, or `undefined` when the view may stay as it is.
   * @throws WorkspaceError `NOT_SUPPORTED` when a requested condensation has nothing to forget.
   */
  condense(request: CondenseRequest): Promise<CondensationEventWire | undefined>;
  /** The JSON form (the summarising model's without its API key unless `includeApiKey`). */
  toConfig(options?: { includeApiKey?: boolean | undefined }): CondenserConfig;
}

/** OpenHands' `NoOpCondenser`: the view is always shown as it is. */
export class NoOpCondenser implements Condenser {
  readonly kind = 'NoOpCondenser' as const;
  readonly handlesRequests = false;
  async condense(): Promise<undefined> {
    return undefined;
  }
  toConfig(): CondenserConfig {
    return { kind: 'NoOpCondenser' };
  }
}

/** Options of {@link RollingWindowCondenser} and {@link LLMSummarizingCondenser}. */
export interface WindowCondenserOptions {
  /** Events the view may hold before it is condensed; default 240. */
  maxSize?: number | undefined;
  /** Events at the start that are never forgotten; default 2. */
  keepFirst?: number | undefined;
}

/**
 * A rolling window: past `maxSize` events, the middle is forgotten so the view keeps the first
 * `keepFirst` events and about the newest `maxSize / 2 - keepFirst - 1` (cuts never separate a
 * tool call from its result). A request halves the view instead. No summary is kept.
 */
export class RollingWindowCondenser implements Condenser {
  readonly kind: CondenserConfig['kind'] = 'RollingWindowCondenser';
  readonly handlesRequests = true;
  readonly maxSize: number;
  readonly keepFirst: number;

  constructor({
    maxSize = DEFAULT_CONDENSER_MAX_SIZE,
    keepFirst = DEFAULT_CONDENSER_KEEP_FIRST,
  }: WindowCondenserOptions = {}) {
    this.maxSize = maxSize;
    this.keepFirst = keepFirst;
  }

  async condense(request: CondenseRequest): Promise<CondensationEventWire | undefined> {
    const range = this.forgottenRange(request);
    if (range === undefined) return undefined;
    const forgotten = request.view.slice(range.start, range.end);
    return this.condensation(forgotten, range.start, request);
  }

  toConfig(): CondenserConfig {
    return { kind: 'RollingWindowCondenser', max_size: this.maxSize, keep_first: this.keepFirst };
  }

  /** The events to forget (OpenHands' rule), or `undefined` when nothing needs to go. */
  protected forgottenRange({
    view,
    requested,
  }: CondenseRequest): { start: number; end: number } | undefined {
    if (!requested && view.length <= this.maxSize) return undefined;
    const target = requested ? Math.floor(view.length / 2) : Math.floor(this.maxSize / 2);
    const tail = Math.max(1, target - this.keepFirst - 1); // the newest event always stays
    const points = cutPoints(view);
    const start = nextCutPoint(points, this.keepFirst);
    const end = nextCutPoint(points, view.length - tail);
    // OpenHands' minimum progress: at least a tenth of the view goes.
    if (end - start > 0 && end - start >= view.length * 0.1) return { start, end };
    if (requested) return this.hardReset(view);
    return undefined;
  }

  /** What a request that finds nothing to forget does: refuse (a summarising condenser forgets all). */
  protected hardReset(view: readonly ViewEvent[]): { start: number; end: number } | undefined {
    throw nothingToCondense(view.length);
  }

  /** The `Condensation` forgetting `forgotten`, which started at `offset` of the view. */
  protected async condensation(
    forgotten: readonly ViewEvent[],
    _offset: number,
    _request: CondenseRequest,
  ): Promise<CondensationEventWire> {
    return {
      kind: 'Condensation',
      ...newEventBase(),
      source: 'environment',
      forgotten_event_ids: forgotten.map((event) => event.id),
      summary: null,
      summary_offset: null,
      llm_response_id: randomUUID(),
    };
  }
}

/** Options of {@link LLMSummarizingCondenser}. */
export interface LLMSummarizingCondenserOptions extends WindowCondenserOptions {
  /** The model that writes the summaries. */
  llm: LanguageModel;
  /** True when `llm` is the agent's own model (then the JSON form leaves `llm` out). */
  sharesAgentModel?: boolean | undefined;
}

/**
 * OpenHands' `LLMSummarizingCondenser`: the window of {@link RollingWindowCondenser}, with the
 * forgotten events summarised by `llm` (OpenHands' summarising prompt) into a summary the model is
 * shown where they were. A request that finds nothing to forget summarises the whole view
 * (OpenHands' hard context reset).
 */
export class LLMSummarizingCondenser extends RollingWindowCondenser {
  override readonly kind: CondenserConfig['kind'] = 'LLMSummarizingCondenser';
  readonly llm: LanguageModel;
  readonly #sharesAgentModel: boolean;

  constructor({ llm, sharesAgentModel = false, ...window }: LLMSummarizingCondenserOptions) {
    super(window);
    this.llm = llm;
    this.#sharesAgentModel = sharesAgentModel;
  }

  override toConfig({
    includeApiKey = false,
  }: {
    includeApiKey?: boolean | undefined;
  } = {}): CondenserConfig {
    const model = this.llm as Partial<{ toConfig(options?: object): object }>;
    const llm =
      this.#sharesAgentModel || typeof model.toConfig !== 'function'
        ? undefined
        : { ...model.toConfig({ includeApiKey }) };
    return {
      kind: 'LLMSummarizingCondenser',
      max_size: this.maxSize,
      keep_first: this.keepFirst,
      ...(llm === undefined ? {} : { llm }),
    };
  }

  protected override hardReset(view: readonly ViewEvent[]): { start: number; end: number } {
    if (view.length === 0) throw nothingToCondense(0);
    return { start: 0, end: view.length };
  }

  protected override async condensation(
    forgotten: readonly ViewEvent[],
    offset: number,
    { signal, onLLMResponse }: CondenseRequest,
  ): Promise<CondensationEventWire> {
    const started = performance.now();
    const completion = await this.llm.complete({
      messages: [{ role: 'user', content: summarizingPrompt(forgotten) }],
      tools: [],
      signal,
    });
    onLLMResponse?.(this.llm, completion, performance.now() - started);
    const summary = completion.message.content.trim() === '' ? null : completion.message.content;
    return {
      kind: 'Condensation',
      ...newEventBase(),
      source: 'environment',
      forgotten_event_ids: forgotten.map((event) => event.id),
      summary,
      summary_offset: summary === null ? null : offset,
      llm_response_id: completion.id || randomUUID(),
    };
  }
}

/** `NOT_SUPPORTED`: a requested condensation found nothing to forget. */
function nothingToCondense(size: number): WorkspaceError {
  return new WorkspaceError({
    code: 'NOT_SUPPORTED',
    message: `nothing to condense: the history shown to the model holds ${size} event(s), too few to forget any`,
    details: { reason: 'nothing_to_condense', viewSize: size },
  });
}
