import type { ConversationEventWire } from '@agent-workspace/protocol';
import { newEventBase } from '../events/new-event-base.js';
import type { LocalConversationCore } from './local-conversation-core.js';
import {
  type RunStop,
  runStopBeforeStep,
  stepFailure,
  userMessageArrived,
} from './run-stop-condition.js';

/**
 * A `LocalConversation`'s run: agent steps until the agent finishes, fails, is stuck, waits for
 * confirmation, or is halted (`signal` aborted, or a pause asked). Ends with the status set.
 */
export async function runLocalAgentLoop(
  core: LocalConversationCore,
  signal: AbortSignal,
): Promise<void> {
  const { workspace, secrets, confirmation, llmControl } = core;
  const events = core.eventView;
  const emit = (event: ConversationEventWire): void => core.record(event);
  core.setStatus('running');
  secrets.beginRun();
  const { tools, actions } = await core.tools.prepare();
  const accepted = await confirmation.runAccepted({
    ...{ events, workspace, actions, tools, signal },
    ...{ emit, secrets },
  });
  if (accepted?.finished && !signal.aborted) return core.setStatus('finished');
  let iterations = 0;
  for (;;) {
    if (signal.aborted || core.halting === 'pause') return paused(core);
    const stop = runStopBeforeStep({
      events,
      stuckThreshold: core.stuckThreshold,
      iterations,
      maxIterations: core.agent.maxIterations,
    });
    if (stop !== undefined) return stopRun(core, stop);
    iterations += 1;
    const seen = core.writer.history.recordedCount;
    let finished: boolean;
    let awaiting: boolean | undefined;
    const agent = core.agent;
    const deltas = llmControl.deltaStream(secrets);
    try {
      ({ finished, awaitingConfirmation: awaiting } = await agent.step({
        events,
        emit,
        workspace,
        actions,
        secrets,
        tools,
        signal,
        review: confirmation.reviewer(workspace.workingDir),
        onStreamDelta: (delta) => deltas.push(delta),
        onCondenserResponse: llmControl.condenserListener(),
        onLLMResponse: (completion, ms) => {
          deltas.end();
          llmControl.recordResponse(agent.llm, completion, ms, { event: true });
        },
      }));
    } catch (error) {
      if (signal.aborted) return paused(core);
      return stopRun(core, stepFailure(error));
    }
    if (awaiting) return core.setStatus('waiting_for_confirmation');
    // A message sent during the step is for the agent to answer: the run goes on.
    const unread = userMessageArrived(events, core.writer.history.recordedCount - seen);
    if (finished && !unread) return core.setStatus('finished');
  }
}

/** Records the halt (`InterruptEvent` or `PauseEvent`) and the status `paused`. */
function paused(core: LocalConversationCore): void {
  const kind = core.halting === 'interrupt' ? 'InterruptEvent' : 'PauseEvent';
  core.record({ kind, ...newEventBase(), source: 'user' });
  core.setStatus('paused');
}

/** Records why the run ends, as an error event, and its status. */
function stopRun(core: LocalConversationCore, { code, detail, status }: RunStop): void {
  core.record({
    kind: 'ConversationErrorEvent',
    ...newEventBase(),
    source: 'environment',
    code,
    detail,
  });
  core.setStatus(status);
}
