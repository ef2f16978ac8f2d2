import { textOfContent } from '../events/text-of-content.js';
import type { ViewEvent } from './condensation-view.js';

/** Longest text of one event in a summarising prompt; longer ones are cut (bounds the prompt). */
export const MAX_SUMMARIZED_EVENT_CHARS = 10_000;

/**
 * The prompt asking a model to summarise `events` (the forgotten ones, earlier summaries among
 * them), after OpenHands' summarising prompt: a running state summary in sections (user context,
 * task tracking with exact ids, done, pending, current state; for code: code state, tests,
 * changes, dependencies, version control).
 */
export function summarizingPrompt(events: readonly ViewEvent[]): string {
  const blocks = events.map((event) => `<EVENT>\n${describeEvent(event)}\n</EVENT>`);
  return [
    'You keep a running summary of the state of an interactive agent. Below are events of its',
    'conversation (earlier summaries may be among them). Summarise them so the agent can go on',
    'without them. If any task tracking appears, keep a TASK_TRACKING section with the exact task',
    'ids and statuses.',
    '',
    'Sections:',
    'USER_CONTEXT: what the user wants, their requirements and clarifications, briefly',
    'TASK_TRACKING: active tasks with their ids and statuses',
    'COMPLETED: what is done, with brief results',
    'PENDING: what is left to do',
    'CURRENT_STATE: variables, data and other state that matters now',
    'For code: CODE_STATE (files, signatures), TESTS (failures, errors), CHANGES (edits),',
    'DEPS (dependencies), VERSION_CONTROL_STATUS (branch, commits, PR).',
    'Fit the sections to the task, keep each short, and skip what does not matter to it.',
    '',
    ...blocks,
    '',
    'Now summarise the events with the sections above.',
  ].join('\n');
}

/** One event as the summariser reads it: its kind, source and text, cut to the limit. */
function describeEvent(event: ViewEvent): string {
  let text: string;
  switch (event.kind) {
    case 'MessageEvent':
      text = `${event.llm_message.role}: ${textOfContent(event.llm_message.content)}`;
      break;
    case 'ActionEvent':
      text = `${textOfContent(event.thought)}\ncalls ${event.tool_name}(${event.tool_call.arguments})`;
      break;
    case 'ObservationEvent':
      text = `${event.tool_name} returned: ${textOfContent(event.observation.content)}`;
      break;
    case 'AgentErrorEvent':
      text = `${event.tool_name} failed: ${event.error}`;
      break;
    case 'UserRejectObservation':
      text = `${event.tool_name} was rejected by the user: ${event.rejection_reason}`;
      break;
  }
  const line = `${event.kind} (${event.source}) ${text}`;
  return line.length > MAX_SUMMARIZED_EVENT_CHARS
    ? `${line.slice(0, MAX_SUMMARIZED_EVENT_CHARS)}… (cut)`
    : line;
}
