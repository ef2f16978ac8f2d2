import { type ActionExecutor, actionExecutorOf } from '@agent-workspace/core';
import { runtimePluginCapability } from '@agent-workspace/protocol';
import type { ToolAvailability, ToolContext } from './tool.js';

/**
 * The executor a plugin tool acts through: the context's `actions`, else the workspace when it
 * declares the `runtimeActions` capability (remote, Docker and Runtime API workspaces);
 * `undefined` when there is none.
 */
export function actionExecutorFor(context: ToolContext): ActionExecutor | undefined {
  return context.actions ?? actionExecutorOf(context.workspace);
}

/**
 * Whether the runtime plugin `plugin` can serve a tool in `context`: available when the
 * executor lists it `ready` or `starting`, or its status announces the plugin's capability (an
 * agent-server lists exactly its `/server_info` plugins); otherwise unavailable, with why.
 */
export async function runtimePluginAvailability(
  context: ToolContext,
  plugin: string,
): Promise<ToolAvailability> {
  const executor = actionExecutorFor(context);
  if (executor === undefined) {
    return {
      available: false,
      reason: `the ${context.workspace.kind} workspace runs no runtime plugins and the conversation was given no action executor`,
    };
  }
  const capability = runtimePluginCapability(plugin);
  try {
    const statuses = await executor.runtimePlugins({ signal: context.signal });
    const status = statuses.find((candidate) => candidate.name === plugin);
    if (
      status !== undefined &&
      (status.state === 'ready' ||
        status.state === 'starting' ||
        status.capabilities.includes(capability))
    ) {
      return { available: true };
    }
    if (status === undefined) {
      return {
        available: false,
        reason: `the ${plugin} runtime plugin is not enabled (an agent-server enables it with --plugin ${plugin})`,
      };
    }
    return {
      available: false,
      reason: `the ${plugin} runtime plugin is ${status.state}${status.error ? `: ${status.error}` : ''}`,
    };
  } catch (error) {
    return {
      available: false,
      reason: `could not ask for the ${plugin} runtime plugin: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
