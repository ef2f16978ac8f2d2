import { randomUUID } from 'node:crypto';
import {
  type ActionExecutor,
  abortedError,
  invalidArgument,
  type Workspace,
  WorkspaceError,
} from '@agent-workspace/core';
import type { ConversationEventWire } from '@agent-workspace/protocol';
import type { Condenser, CondenserResponseListener } from '../condenser/condenser.js';
import { condensationFor, condenserFromConfig } from '../condenser/condenser-from-config.js';
import { newEventBase } from '../events/new-event-base.js';
import type { Completion, LanguageModel } from '../llm/language-model.js';
import { LLM } from '../llm/llm.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import type { StreamDeltaListener } from '../llm/stream-completion.js';
import type { CommandSecrets } from '../secrets/conversation-secrets.js';
import { createTool, isToolName, TOOL_NAMES } from '../tools/create-tools.js';
import { FinishTool, isFinishTool } from '../tools/finish-tool.js';
import type { Tool } from '../tools/tool.js';
import { type ActionReviewer, reviewPlannedCalls } from './action-review.js';
import { type AgentConfig, agentConfigSchema } from './agent-config.js';
import { TranscriptBuilder } from './build-transcript.js';
import { DEFAULT_SYSTEM_PROMPT } from './default-system-prompt.js';
import { executePlannedCalls } from './execute-planned-calls.js';
import { agentError, planCall } from './plan-call.js';
import { withSecretNames } from './secrets-prompt.js';
import { toolSpecName } from './tool-kind-name.js';
import { toolSpecOf } from './tool-spec-of.js';

/** Iterations of one run when the agent is given no `maxIterations` (OpenHands' default). */
export const DEFAULT_MAX_ITERATIONS = 500;
/** Largest `maxIterations`. */
export const MAX_ITERATIONS_LIMIT = 10_000;

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** The model: an `LLM`, a `ScriptedLLM`, or any {@link LanguageModel}. */
  llm: LanguageModel;
  /**
   * The tools: OpenHands spec names (`TerminalTool`, `FileEditorTool`, `TaskTrackerTool`,
   * `FinishTool`), made into fresh instances for each conversation by the tools registry, or
   * instances (then shared by every conversation of this agent). `finish` is always added, as
   * OpenHands does.
   */
  tools?: readonly (Tool | string)[] | undefined;
  /** Replaces {@link DEFAULT_SYSTEM_PROMPT}. */
  systemPrompt?: string | undefined;
  /** Model calls one run may make before it ends with status `error`; default 500, at most 10,000. */
  maxIterations?: number | undefined;
  /** Keeps the transcript bounded (`RollingWindowCondenser`, `LLMSummarizingCondenser`, ...). */
  condenser?: Condenser | undefined;
}

/** What {@link Agent.step} works with. */
export interface AgentStepContext {
  /** The conversation so far, oldest first; events emitted during the step are appended. */
  events: readonly ConversationEventWire[];
  /** Records an event (the conversation appends, persists and broadcasts it). */
  emit: (event: ConversationEventWire) => void;
  /** Where the tools act. */
  workspace: Workspace;
  /** Runs the runtime plugins' actions of browser and IPython tools (see `ToolContext.actions`). */
  actions?: ActionExecutor | undefined;
  /** The conversation's tool instances (from {@link Agent.createTools}). */
  tools: readonly Tool[];
  /** Cancels the model call or the running tool. */
  signal?: AbortSignal | undefined;
  /** The conversation's secrets, given to the terminal's commands (see `ToolContext.secrets`). */
  secrets?: CommandSecrets | undefined;
  /**
   * Reviews the step's valid actions before any runs (confirmation mode, security analyzer):
   * held actions are recorded but not run, and the step ends `awaitingConfirmation`.
   */
  review?: ActionReviewer | undefined;
  /** Told each piece of the model's answer as it streams in (a model that streams). */
  onStreamDelta?: StreamDeltaListener | undefined;
  /** Told the model's completion and how long the call took, before anything is emitted. */
  onLLMResponse?: ((completion: Completion, latencyMs: number) => void) | undefined;
  /** Told each response of the condenser's summarising model (OpenHands accounts it apart). */
  onCondenserResponse?: CondenserResponseListener | undefined;
}

/** What one {@link Agent.step} did. */
export interface AgentStepResult {
  /** True when the agent is done: it answered without a tool call, or `finish` succeeded. */
  finished: boolean;
  /** True when the step's actions were recorded but held for the user's confirmation. */
  awaitingConfirmation?: boolean | undefined;
}

/** Options of {@link Agent.fromConfig}. */
export interface AgentFromConfigOptions {
  /** Builds the model from an `llm` config that is not a `ScriptedLLM`'s; default `LLM.fromConfig`. */
  createModel?: ((config: Record<string, unknown>) => LanguageModel) | undefined;
  /** As {@link AgentOptions.maxIterations} (OpenHands keeps it outside the agent's JSON). */
  maxIterations?: number | undefined;
}

/** The model's config, when the model can give one. */
interface ConfigurableModel {
  toConfig(options?: { includeApiKey?: boolean | undefined }): object;
}

/**
 * An agent: a model, tools and a system prompt. {@link Agent.step} is one turn of the loop: it
 * sends the transcript to the model and acts on the answer, recording everything as events. A
 * conversation (`LocalConversation`) repeats steps until the agent is done.
 */
export class Agent {
  /** The model. */
  readonly llm: LanguageModel;
  /** The system prompt sent first in every transcript. */
  readonly systemPrompt: string;
  /** Model calls one run may make. */
  readonly maxIterations: number;
  /** What condenses the history shown to the model, if anything. */
  readonly condenser: Condenser | undefined;
  readonly #tools: readonly (Tool | string)[];
  readonly #customSystemPrompt: boolean;
  /** One transcript per history this agent steps on, read incrementally from step to step. */
  readonly #transcripts = new WeakMap<readonly ConversationEventWire[], TranscriptBuilder>();

  constructor({ llm, tools = [], systemPrompt, maxIterations, condenser }: AgentOptions) {
    if (
      maxIterations !== undefined &&
      (!Number.isInteger(maxIterations) ||
        maxIterations < 1 ||
        maxIterations > MAX_ITERATIONS_LIMIT)
    ) {
      throw invalidArgument(
        'maxIterations',
        `must be an integer from 1 to ${MAX_ITERATIONS_LIMIT}`,
      );
    }
    const names = tools.map((tool) => (typeof tool === 'string' ? tool : toolSpecName(tool)));
    const unknown = tools.find((tool) => typeof tool === 'string' && !isToolName(tool));
    if (unknown !== undefined) {
      throw invalidArgument(
        'tools',
        `names ${JSON.stringify(unknown)}, which is not a known tool; known tools: ${TOOL_NAMES.join(', ')}`,
      );
    }
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) throw invalidArgument('tools', `lists ${duplicate} twice`);
    this.llm = llm;
    this.#tools = [...tools];
    this.systemPrompt = systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    this.#customSystemPrompt = systemPrompt !== undefined;
    this.maxIterations = maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.condenser = condenser;
  }

  /**
   * Builds an agent from its JSON form ({@link Agent.toConfig}, or an OpenHands agent's JSON).
   * The model is a `ScriptedLLM` when `llm.kind` is `ScriptedLLM`, otherwise
   * `options.createModel(llm)` (default `LLM.fromConfig`); tools stay spec names, made into
   * instances per conversation (an unknown name is an `INVALID_ARGUMENT` naming `tools`). Bad JSON is an `INVALID_CONFIG` error naming the field.
   */
  static fromConfig(json: unknown, options: AgentFromConfigOptions = {}): Agent {
    const parsed = agentConfigSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join('.') || '(root)';
      throw new WorkspaceError({
        code: 'INVALID_CONFIG',
        message: `invalid agent config: ${field}: ${issue.message}`,
        details: { field },
      });
    }
    const { llm, tools, system_prompt: systemPrompt } = parsed.data;
    const createModel = options.createModel ?? ((config) => LLM.fromConfig(config));
    const model = underField('llm', () =>
      llm.kind === 'ScriptedLLM' ? ScriptedLLM.fromConfig(llm) : createModel(llm),
    );
    return new Agent({
      llm: model,
      tools: tools.map((tool) => tool.name),
      systemPrompt,
      maxIterations: options.maxIterations,
      condenser: condenserFromConfig(parsed.data.condenser, { agentModel: model, createModel }),
    });
  }

  /**
   * The same agent (tools, system prompt, iterations, condenser) with another model: what a
   * conversation's `switchLlm` runs its next steps with.
   */
  withLLM(llm: LanguageModel): Agent {
    return new Agent({
      llm,
      tools: this.#tools,
      systemPrompt: this.#customSystemPrompt ? this.systemPrompt : undefined,
      maxIterations: this.maxIterations,
      condenser: this.condenser,
    });
  }

  /**
   * The tool instances for one conversation: the given instances, fresh ones for spec names
   * (`workingDir` is told to the file editor), and a `FinishTool` unless a `finish` is listed.
   */
  createTools({ workingDir }: { workingDir?: string | undefined } = {}): Tool[] {
    const tools = this.#tools.map((tool) =>
      typeof tool === 'string' ? createTool(tool, { workingDir }) : tool,
    );
    if (!tools.some(isFinishTool)) tools.push(new FinishTool());
    return tools;
  }

  /**
   * The JSON form: `{ kind: 'Agent', llm, tools: [{ name }], system_prompt? }`. The model's API
   * key is left out unless `includeApiKey` (for the hop to an agent-server that needs it).
   * `INVALID_ARGUMENT` when the model has no JSON form (a `LanguageModel` without `toConfig`).
   */
  toConfig({ includeApiKey = false }: { includeApiKey?: boolean | undefined } = {}): AgentConfig {
    const model = this.llm as Partial<ConfigurableModel>;
    if (typeof model.toConfig !== 'function') {
      throw invalidArgument(
        'llm',
        `(${this.llm.model}) has no toConfig(), so the agent has no JSON form`,
      );
    }
    return {
      kind: 'Agent',
      llm: { ...model.toConfig({ includeApiKey }) },
      tools: this.#tools.map((tool) => ({
        name: typeof tool === 'string' ? tool : toolSpecName(tool),
      })),
      ...(this.#customSystemPrompt ? { system_prompt: this.systemPrompt } : {}),
      ...(this.condenser ? { condenser: this.condenser.toConfig({ includeApiKey }) } : {}),
    };
  }

  /**
   * One turn: sends the transcript of `events` to the model with the tools' specs, then acts on
   * the answer. A text-only answer becomes an agent `MessageEvent` and finishes. Each tool call
   * becomes an `ActionEvent`; an unknown tool or arguments that fail the tool's schema give an
   * `AgentErrorEvent` instead of running (the model reads it next turn); each valid call runs
   * through the workspace and gives an `ObservationEvent`, or an `AgentErrorEvent` when the tool
   * throws. A model failure is thrown. When `signal` fires, the running tool and the calls left
   * get `AgentErrorEvent`s, and the step throws `ABORTED`. A `review` that holds the valid calls
   * leaves them recorded and not run (`awaitingConfirmation`).
   */
  async step(context: AgentStepContext): Promise<AgentStepResult> {
    const { emit, tools, signal } = context;
    if (signal?.aborted) throw abortedError(signal);
    // A condensation is this step's work (OpenHands): the next step shows the condensed view.
    const condensation = await condensationFor(this.condenser, context.events, {
      signal,
      onLLMResponse: context.onCondenserResponse,
    });
    if (condensation !== undefined) {
      emit(condensation);
      return { finished: false };
    }
    const started = performance.now();
    const completion = await this.llm.complete({
      messages: this.#transcriptOf(context.events).build({
        systemPrompt: withSecretNames(this.systemPrompt, context.secrets?.names ?? []),
        events: context.events,
      }),
      tools: tools.map(toolSpecOf),
      signal,
      onStreamDelta: context.onStreamDelta,
    });
    context.onLLMResponse?.(completion, performance.now() - started);
    const { message } = completion;
    // Events need non-empty ids and names; not every provider guarantees them.
    const responseId = completion.id || randomUUID();
    const calls = (message.toolCalls ?? []).map((call) => ({
      ...call,
      id: call.id || `call_${randomUUID()}`,
      name: call.name || '(no name)',
    }));
    if (calls.length === 0) {
      emit({
        kind: 'MessageEvent',
        ...newEventBase(),
        source: 'agent',
        llm_message: { role: 'assistant', content: [{ type: 'text', text: message.content }] },
        llm_response_id: responseId,
      });
      return { finished: true };
    }

    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const planned = calls.map((call, index) =>
      planCall(call, byName, index === 0 ? message.content : '', responseId),
    );
    const held = await reviewPlannedCalls(planned, context.review);
    // Every call becomes an action first (OpenHands' order); a refused one is answered at once.
    for (const plan of planned) {
      emit(plan.action);
      if (plan.refusal !== undefined) emit(agentError(plan.action, plan.refusal));
    }
    if (held) return { finished: false, awaitingConfirmation: true };
    const result = await executePlannedCalls(context, planned);
    if (signal?.aborted) throw abortedError(signal);
    return result;
  }

  #transcriptOf(events: readonly ConversationEventWire[]): TranscriptBuilder {
    let transcript = this.#transcripts.get(events);
    if (transcript === undefined) {
      transcript = new TranscriptBuilder();
      this.#transcripts.set(events, transcript);
    }
    return transcript;
  }
}

/**
 * `build()`, with the fields an `INVALID_CONFIG` error of it names put under `parent` (the model's
 * config errors name fields of the model's JSON; the agent's caller needs `llm.base_url`).
 */
function underField<T>(parent: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'INVALID_CONFIG')) throw error;
    const { field, fields } = error.details;
    const nested = (name: unknown): unknown =>
      typeof name !== 'string' ? name : name === '(root)' ? parent : `${parent}.${name}`;
    error.details.field = nested(field);
    if (Array.isArray(fields)) error.details.fields = fields.map(nested);
    throw error;
  }
}
