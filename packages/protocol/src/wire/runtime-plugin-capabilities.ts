/**
 * OpenHands' action execution route: `POST /execute_action` with `{"action": {...}}`, answering an
 * observation. A server that offers it lists this capability in `/server_info`.
 */
export const EXECUTE_ACTION_CAPABILITY = 'agent_workspace.execute_action_v1';

/** The capability a server lists while its runtime plugin `name` is ready, e.g. `browser`. */
export function runtimePluginCapability(name: string): string {
  return `agent_workspace.plugin.${name}_v1`;
}
