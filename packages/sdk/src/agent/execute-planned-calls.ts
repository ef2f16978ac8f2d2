import { newEventBase } from '../events/new-event-base.js';
import { isFinishTool } from '../tools/finish-tool.js';
import type { AgentStepContext, AgentStepResult } from './agent.js';
import { agentError, type PlannedCall } from './plan-call.js';
import { toolKindName } from './tool-kind-name.js';

/**
 * Runs the planned calls of a step in order (refused ones are skipped: they were answered when
 * planned). Each gives an `ObservationEvent`, or an `AgentErrorEvent` when the tool throws; when
 * `signal` fires, the running call and those left get `AgentErrorEvent`s. `finished` is true
 * when a `finish` call succeeded. Does not throw on abort: the caller checks `signal`.
 */
export async function executePlannedCalls(
  context: Pick<AgentStepContext, 'emit' | 'workspace' | 'actions' | 'signal' | 'secrets'>,
  planned: readonly PlannedCall[],
): Promise<AgentStepResult> {
  const { emit, workspace, actions, signal, secrets } = context;
  let finished = false;
  for (const call of planned) {
    if (call.tool === undefined) continue;
    if (signal?.aborted) {
      emit(agentError(call.action, 'Not run: the run was paused before this call.'));
      continue;
    }
    try {
      const result = await call.tool.execute(call.args, { workspace, actions, signal, secrets });
      emit({
        kind: 'ObservationEvent',
        ...newEventBase(),
        source: 'environment',
        observation: {
          ...result.content,
          kind: toolKindName(call.tool.name, 'Observation'),
          content: [{ type: 'text', text: result.text }],
          is_error: result.isError,
        },
        action_id: call.action.id,
        tool_name: call.action.tool_name,
        tool_call_id: call.action.tool_call_id,
      });
      if (isFinishTool(call.tool) && !result.isError) finished = true;
    } catch (error) {
      const reason = signal?.aborted
        ? 'Interrupted: the run was paused while this call ran.'
        : `${call.tool.name} failed: ${error instanceof Error ? error.message : String(error)}`;
      emit(agentError(call.action, reason));
    }
  }
  return { finished };
}
