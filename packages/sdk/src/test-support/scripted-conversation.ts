import type { ConversationEventWire } from '@agent-workspace/protocol';
import { Agent, type AgentOptions } from '../agent/agent.js';
import { recordingModel } from '../agent/test-support/recording-model.js';
import { ScriptedLLM, type ScriptedStep } from '../llm/scripted-llm.js';

/** A scripted `terminal` tool call running `command`. */
export const terminal = (command: string) => ({ name: 'terminal', arguments: { command } });

/** A scripted `finish` tool call with `message`. */
export const finish = (message: string) => ({ name: 'finish', arguments: { message } });

/**
 * An agent whose model plays `script` and records what it is asked; the terminal is its only
 * tool unless `options.tools` says otherwise.
 */
export function scriptedAgent(
  script: ScriptedStep[],
  options: Partial<Omit<AgentOptions, 'llm'>> = {},
) {
  const llm = recordingModel(new ScriptedLLM({ script }));
  return { agent: new Agent({ llm, tools: ['TerminalTool'], ...options }), llm };
}

/** The kinds of `events`, in order. */
export const kinds = (events: Iterable<ConversationEventWire>) =>
  [...events].map((event) => event.kind);

/** The events of `kind`, typed as such. */
export const ofKind = <K extends ConversationEventWire['kind']>(
  events: Iterable<ConversationEventWire>,
  kind: K,
) =>
  [...events].filter(
    (event): event is Extract<ConversationEventWire, { kind: K }> => event.kind === kind,
  );

/** The execution statuses that `events` announce, in order. */
export const statuses = (events: Iterable<ConversationEventWire>) =>
  [...events].flatMap((event) =>
    event.kind === 'ConversationStateUpdateEvent' && event.key === 'execution_status'
      ? [event.value]
      : [],
  );
