import { type RuntimeActions, runtimeActionsOf, WorkspaceError } from '@agent-workspace/core';
import { actionExecutorFor } from './runtime-plugin-availability.js';
import type { ToolContext, ToolObservation } from './tool.js';

/** Options of {@link pluginToolCall}. */
export interface PluginToolCallOptions<T> {
  context: ToolContext;
  /** What the model sent, kept in `content`. */
  code: string;
  /** What is missing without an executor, e.g. `The browser`. */
  subject: string;
  call: (actions: RuntimeActions) => Promise<T>;
  observe: (observation: T) => ToolObservation;
}

/**
 * Runs a plugin tool's action through the context's executor. No executor, and arguments the
 * executor refuses (`INVALID_ARGUMENT`: code that does not parse, a bad URL), are error
 * observations the model reads; other failures propagate.
 */
export async function pluginToolCall<T>({
  context,
  code,
  subject,
  call,
  observe,
}: PluginToolCallOptions<T>): Promise<ToolObservation> {
  const executor = actionExecutorFor(context);
  const refused = (text: string): ToolObservation => ({
    text,
    content: { code, observation: null },
    isError: true,
  });
  if (executor === undefined) {
    return refused(
      `${subject} is not available here: the ${context.workspace.kind} workspace runs no runtime plugins.`,
    );
  }
  let observation: T;
  try {
    observation = await call(runtimeActionsOf(executor));
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) throw error;
    return refused(`Nothing ran: ${error.message}. Fix the code and call the tool again.`);
  }
  return observe(observation);
}
