import { stat } from 'node:fs/promises';
import {
  type ActionExecutor,
  actionExecutorOf,
  hasAgentServer,
  type Workspace,
} from '@agent-workspace/core';
import type { Agent } from '../agent/agent.js';
import type { Tool, ToolContext } from '../tools/tool.js';

/** A tool left out of a conversation, and why. */
export interface UnavailableTool {
  /** LLM-facing name, e.g. `browser`. */
  name: string;
  reason: string;
}

/** Options of {@link ConversationTools}. */
export interface ConversationToolsOptions {
  /** The conversation's tool instances. */
  tools: readonly Tool[];
  workspace: Workspace;
  /**
   * The executor plugin tools act through; `null` for none (no local host either). See
   * `LocalConversationOptions.actions`.
   */
  actions?: ActionExecutor | null | undefined;
  /** Told of each tool left out; default a process warning. */
  onToolUnavailable?: ((tool: UnavailableTool) => void) | undefined;
}

/** The tools offered to the model and the executor they act through. */
export interface PreparedTools {
  tools: readonly Tool[];
  actions: ActionExecutor | undefined;
  unavailable: readonly UnavailableTool[];
}

/** A local plugin host, as the SDK uses it. */
type LocalPluginHost = ActionExecutor & { close(): Promise<void> };

/**
 * The tools of one conversation, checked once when it first runs: a tool with `available()` that
 * says no is left out, with its reason. Tools that act through runtime plugins get an executor:
 * the given `actions`, else the workspace when it is one (remote, Docker, Runtime API), else —
 * for a workspace on this machine without an agent-server — a local `PluginHost` over its
 * working directory with just the plugins those tools name, started here and closed by
 * {@link ConversationTools.close}. Decided by capabilities, never by class.
 */
export class ConversationTools {
  /** The tools left out, once {@link ConversationTools.prepare} ran; `[]` before. */
  unavailable: readonly UnavailableTool[] = [];
  readonly #options: ConversationToolsOptions;
  #prepared: Promise<PreparedTools> | undefined;
  #localHost: LocalPluginHost | undefined;
  #closed = false;

  constructor(options: ConversationToolsOptions) {
    this.#options = options;
  }

  /** Checks the tools once (later calls share the first's outcome). */
  prepare(): Promise<PreparedTools> {
    this.#prepared ??= this.#prepare();
    return this.#prepared;
  }

  /** Closes the local plugin host, if one was started. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#prepared?.catch(() => undefined);
    await this.#localHost?.close();
  }

  async #prepare(): Promise<PreparedTools> {
    const { tools, workspace } = this.#options;
    const plugins = [...new Set(tools.flatMap((tool) => tool.runtimePlugins ?? []))];
    const given = this.#options.actions;
    let actions = given === null ? undefined : (given ?? actionExecutorOf(workspace));
    let noExecutor = given === null ? 'the conversation runs no runtime plugins' : undefined;
    if (actions === undefined && given !== null && plugins.length > 0) {
      const local = await this.#startLocalHost(plugins);
      if (typeof local === 'string') noExecutor = local;
      else actions = local;
    }
    const context: ToolContext = { workspace, actions };
    const offered: Tool[] = [];
    const unavailable: UnavailableTool[] = [];
    for (const tool of tools) {
      const needsExecutor = (tool.runtimePlugins?.length ?? 0) > 0;
      const availability =
        needsExecutor && noExecutor !== undefined
          ? { available: false as const, reason: noExecutor }
          : await (tool.available?.(context) ?? { available: true as const });
      if (availability.available) offered.push(tool);
      else unavailable.push({ name: tool.name, reason: availability.reason });
    }
    this.unavailable = unavailable;
    const report = this.#options.onToolUnavailable ?? warnUnavailable;
    for (const tool of unavailable) report(tool);
    return { tools: offered, actions, unavailable };
  }

  /** A local plugin host for a workspace on this machine, or why there can be none. */
  async #startLocalHost(plugins: string[]): Promise<LocalPluginHost | string> {
    const { workspace } = this.#options;
    if (hasAgentServer(workspace)) {
      return `the ${workspace.kind} workspace's agent-server runs no runtime plugins`;
    }
    const identity = await workspace.identity?.().catch(() => undefined);
    if (identity === undefined || identity.projectionKind === 'container') {
      return `the ${workspace.kind} workspace is not on this machine, has no agent-server, and the conversation was given no action executor`;
    }
    const local = await stat(identity.executionRoot).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
    if (!local) {
      return `the ${workspace.kind} workspace's directory ${identity.executionRoot} is not on this machine, and the conversation was given no action executor`;
    }
    try {
      const { PluginHost } = await import('@agent-workspace/runtime-plugins');
      if (this.#closed) return 'the conversation is closed';
      const host = PluginHost.start({ plugins, workingDir: workspace.workingDir });
      this.#localHost = host;
      return host;
    } catch (error) {
      return `no local runtime plugins: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}

function warnUnavailable({ name, reason }: UnavailableTool): void {
  process.emitWarning(`the ${name} tool is not offered to the model: ${reason}`, {
    code: 'AGENT_WORKSPACE_TOOL_UNAVAILABLE',
  });
}

/** The agent's tools for one conversation (fresh instances), checked when it first runs. */
export function conversationToolsOf(
  options: Omit<ConversationToolsOptions, 'tools'> & { agent: Pick<Agent, 'createTools'> },
): ConversationTools {
  const { agent, workspace, actions, onToolUnavailable } = options;
  const tools = agent.createTools({ workingDir: workspace.workingDir });
  return new ConversationTools({ tools, workspace, actions, onToolUnavailable });
}
