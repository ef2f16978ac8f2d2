import type { ActionExecutor, Workspace } from '@agent-workspace/core';
import type { z } from 'zod';
import type { CommandSecrets } from '../secrets/conversation-secrets.js';

/** What a tool acts on. */
export interface ToolContext {
  /** The only way a tool touches the world: commands, files and git through the contract. */
  workspace: Workspace;
  /**
   * Runs OpenHands actions for tools that act through runtime plugins (browser, IPython): the
   * conversation's executor (an agent-server's plugin host, a local one). Without it those tools
   * use the workspace when it declares the `runtimeActions` capability (`actionExecutorOf`).
   */
  actions?: ActionExecutor | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The conversation's secrets: the terminal gives each command the secrets it names as
   * environment variables (`ConversationSecrets`).
   */
  secrets?: CommandSecrets | undefined;
}

/** Whether a tool can be offered to the model, and why not. */
export type ToolAvailability = { available: true } | { available: false; reason: string };

/** What a tool call produced. */
export interface ToolObservation {
  /** Text shown to the model; long outputs are truncated with a marker. */
  text: string;
  /** The full result, kept in the observation event (e.g. `{ command, exit_code, output }`). */
  content: Record<string, unknown>;
  /** True when the call failed (bad arguments, a refused edit, ...): the model is told so. */
  isError: boolean;
}

/**
 * A tool with OpenHands' LLM-facing name and argument shape. Instances hold per-conversation
 * state (a terminal's cwd, an editor's undo history, a task list): make one per conversation.
 */
export interface Tool<Args = unknown> {
  /** LLM-facing name, e.g. `terminal`, `file_editor`, `task_tracker`, `finish`. */
  readonly name: string;
  readonly description: string;
  /** Arguments schema; given to the model as JSON Schema and checked before `execute`. */
  readonly parameters: z.ZodType<Args>;
  /**
   * Its OpenHands spec name when that is not `toolKindName(name, 'Tool')` (`IPythonTool` for
   * `execute_ipython_cell`); `Agent.toConfig()` writes it.
   */
  readonly specName?: string | undefined;
  /**
   * Runtime plugins it acts through (e.g. `['browser']`): a conversation over a workspace on
   * this machine without an agent-server starts a local plugin host with them.
   */
  readonly runtimePlugins?: readonly string[] | undefined;
  /**
   * Checked once when a conversation starts: an unavailable tool is not offered to the model,
   * and the conversation reports the reason. Without it a tool is always available.
   */
  available?(context: ToolContext): Promise<ToolAvailability>;
  execute(args: Args, context: ToolContext): Promise<ToolObservation>;
}
