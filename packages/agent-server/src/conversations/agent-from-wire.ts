import { WorkspaceError } from '@agent-workspace/core';
import type { Agent } from '@agent-workspace/sdk';
import { HttpError } from '../app/http-error.js';

/**
 * Builds the agent of a start request (`Agent.fromConfig`); a bad agent is a 422 naming the
 * field under `agent`. The SDK is loaded on the first call, off the server's start-up.
 */
export async function agentFromWire(json: unknown, maxIterations: number): Promise<Agent> {
  const { Agent } = await import('@agent-workspace/sdk');
  try {
    return Agent.fromConfig(json, { maxIterations });
  } catch (error) {
    if (!WorkspaceError.isInstance(error)) throw error;
    const field = typeof error.details.field === 'string' ? error.details.field : undefined;
    throw new HttpError(422, [
      {
        type: 'value_error',
        loc: ['body', 'agent', ...(field && field !== '(root)' ? field.split('.') : [])],
        msg: error.message,
        input: null,
      },
    ]);
  }
}

/** The agent's JSON without an API key (also removes one a model might add). */
export function redactedAgent(agent: Agent): Record<string, unknown> {
  let config: unknown;
  try {
    config = agent.toConfig();
  } catch {
    return {};
  }
  return redactedAgentConfig(config);
}

/**
 * A copy of an agent's JSON without `llm.api_key` (nor `condenser.llm.api_key`); `{}` for what is
 * not an object.
 */
export function redactedAgentConfig(config: unknown): Record<string, unknown> {
  if (typeof config !== 'object' || config === null) return {};
  let copy: Record<string, unknown>;
  try {
    copy = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  } catch {
    return {};
  }
  const llm = copy.llm as Record<string, unknown> | undefined;
  if (typeof llm === 'object' && llm !== null) delete llm.api_key;
  // An LLMSummarizingCondenser's own model.
  const condenserLlm = (copy.condenser as { llm?: Record<string, unknown> } | undefined)?.llm;
  if (typeof condenserLlm === 'object' && condenserLlm !== null) delete condenserLlm.api_key;
  return copy;
}
