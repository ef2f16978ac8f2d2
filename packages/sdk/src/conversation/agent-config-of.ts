import type { Agent } from '../agent/agent.js';

/** The agent's JSON form for the state file (never with an API key), or `null` if it has none. */
export function agentConfigOf(agent: Agent): Record<string, unknown> | null {
  try {
    return { ...agent.toConfig() };
  } catch {
    return null;
  }
}
