import { z } from 'zod';

/**
 * The JSON form of an `Agent`, OpenHands-shaped: `llm` is the model's config (an `LLM`'s, or a
 * `ScriptedLLM`'s with `kind: 'ScriptedLLM'`), `tools` names each tool by its OpenHands spec name
 * (`TerminalTool`, `FileEditorTool`, ...). Loose: the other fields of an OpenHands agent
 * (`agent_context`, `condenser`, ...) are accepted and ignored.
 */
export const agentConfigSchema = z.looseObject({
  kind: z.literal('Agent').optional(),
  llm: z.looseObject({ kind: z.string().optional() }),
  tools: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .default([]),
  system_prompt: z.string().optional(),
});

/** The JSON form of an `Agent`, as `Agent.toConfig()` writes it. */
export interface AgentConfig {
  kind: 'Agent';
  /** The model's own config (`LLM.toConfig()`, `ScriptedLLM.toConfig()`). */
  llm: Record<string, unknown>;
  /** Each tool by its OpenHands spec name, e.g. `{ name: 'TerminalTool' }`. */
  tools: { name: string }[];
  /** Present when the agent was given its own system prompt. */
  system_prompt?: string | undefined;
  /** Present when the agent has a condenser (see `condenserConfigSchema`). */
  condenser?: Record<string, unknown> | undefined;
}
