import type { ConversationEventWire } from '@agent-workspace/protocol';

/** Why a demo run did not do its task, as read from the run's status and events. */
export type DemoFailure =
  /** The loop ended with an error event (a model failure, the iteration limit, ...). */
  | { kind: 'run-error'; code: string; detail: string }
  /** The loop ended with `status` (e.g. `paused`, `stuck`) and no error event. */
  | { kind: 'run-ended'; status: string }
  /** The model called a tool the agent does not have. */
  | { kind: 'unknown-tool'; tool: string }
  /** The model answered text without a tool call, which ends the run, before stats.js existed. */
  | { kind: 'text-only'; text: string }
  /** The agent finished without writing stats.js (nothing more specific is known). */
  | { kind: 'no-stats' }
  /** stats.js exists but `node stats.test.js` fails. */
  | { kind: 'test-fails' };

/** What {@link findDemoFailure} reads. */
export interface FindDemoFailureOptions {
  /** The status the run ended with. */
  status: string;
  /** The conversation's events, oldest first. */
  events: readonly ConversationEventWire[];
  /** True when stats.js exists after the run. */
  wroteStats: boolean;
  /** True when `node stats.test.js` passes after the run. */
  testPassed: boolean;
}

// The agent's refusal of a tool it does not have (OpenHands' wording).
const UNKNOWN_TOOL = /^Tool '(.*)' not found\b/;

/**
 * Why the run did not do its task, or `undefined` when it finished and the test passes. An
 * ended run is explained by its last error event; a finished one without stats.js by the
 * model's first call of an unknown tool, else by its text-only answer.
 */
export function findDemoFailure(options: FindDemoFailureOptions): DemoFailure | undefined {
  const { status, events, wroteStats, testPassed } = options;
  if (status !== 'finished') {
    const error = events.findLast((event) => event.kind === 'ConversationErrorEvent');
    return error === undefined
      ? { kind: 'run-ended', status }
      : { kind: 'run-error', code: error.code, detail: error.detail };
  }
  if (wroteStats) return testPassed ? undefined : { kind: 'test-fails' };
  for (const event of events) {
    const tool = event.kind === 'AgentErrorEvent' ? UNKNOWN_TOOL.exec(event.error)?.[1] : undefined;
    if (tool !== undefined) return { kind: 'unknown-tool', tool };
  }
  const answer = events.findLast(
    (event) => event.kind === 'MessageEvent' && event.source === 'agent',
  );
  if (answer?.kind === 'MessageEvent') {
    const text = answer.llm_message.content
      .map((part) => (part.type === 'text' ? part.text : ''))
      .join('');
    return { kind: 'text-only', text };
  }
  return { kind: 'no-stats' };
}
