import type { Workspace } from '@agent-workspace/core';
import type { z } from 'zod';

/** What a tool acts on. */
export interface ToolContext {
  /** The only way a tool touches the world: commands, files and git through the contract. */
  workspace: Workspace;
  signal?: AbortSignal | undefined;
}

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
  execute(args: Args, context: ToolContext): Promise<ToolObservation>;
}
