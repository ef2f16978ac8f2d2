import type {
  ActionEventWire,
  ConversationEventWire,
  StreamingDeltaEventWire,
} from '@agent-workspace/protocol';
import { modelOf as modelOfInfo } from '../api/list-conversations.js';

/**
 * Most events a timeline keeps: past it the oldest are dropped, so a long conversation's memory
 * stays bounded (the list shows that older events were left out).
 */
export const MAX_TIMELINE_EVENTS = 20_000;

/** Wire shape of the `ServerErrorEvent` the events socket sends when a client frame failed. */
export interface ServerErrorEventWire {
  readonly kind: 'ServerErrorEvent';
  readonly id: string;
  readonly timestamp: string;
  readonly source?: string;
  readonly code: string;
  readonly detail: string;
}

/** What the events socket sends: a recorded event, a streamed delta or a server error. */
export type StreamedEvent = ConversationEventWire | StreamingDeltaEventWire | ServerErrorEventWire;

/** An event the timeline shows as an item (state updates and deltas are folded into state). */
export type TimelineEvent =
  | Exclude<ConversationEventWire, { kind: 'ConversationStateUpdateEvent' }>
  | ServerErrorEventWire;

/** One task of the agent's task tracker. */
export interface TrackedTask {
  readonly title: string;
  readonly notes: string;
  /** `todo`, `in_progress` or `done`. */
  readonly status: string;
}

/** The model's answer as it streams in, before its message or action event arrives. */
export interface StreamingText {
  readonly content: string;
  readonly reasoning: string;
}

/** What the page knows of a conversation from its events socket. */
export interface ConversationTimeline {
  /** The shown events, oldest first by timestamp, each id once. */
  readonly events: readonly TimelineEvent[];
  /** Ids of the events applied (shown or not), to drop a replayed one; bounded. */
  readonly ids: ReadonlySet<string>;
  /** `execution_status` (`idle`, `running`, ...), `null` until the server said. */
  readonly status: string | null;
  readonly title: string | null;
  /** The agent's model (`agent.llm.model`). */
  readonly model: string | null;
  /** The newest task list of the task tracker. */
  readonly tasks: readonly TrackedTask[];
  /** The answer streaming in now, or `null`. */
  readonly streaming: StreamingText | null;
  /** How many old events were dropped to stay under {@link MAX_TIMELINE_EVENTS}. */
  readonly dropped: number;
}

/** A timeline with nothing in it yet. */
export const EMPTY_TIMELINE: ConversationTimeline = {
  events: [],
  ids: new Set(),
  status: null,
  title: null,
  model: null,
  tasks: [],
  streaming: null,
  dropped: 0,
};

/** Options of {@link applyEvents}. */
export interface ApplyEventsOptions {
  /** Most events kept; default {@link MAX_TIMELINE_EVENTS}. */
  readonly maxEvents?: number;
}

/**
 * The timeline after `incoming` (in the order received): an event whose id was seen is dropped;
 * state updates set the status, title and model; deltas accumulate into `streaming` until the
 * agent's message, action or error of that answer arrives; the newest task tracker observation
 * sets the tasks. Pure: `timeline` is not changed.
 */
export function applyEvents(
  timeline: ConversationTimeline,
  incoming: readonly StreamedEvent[],
  options: ApplyEventsOptions = {},
): ConversationTimeline {
  if (incoming.length === 0) return timeline;
  const maxEvents = options.maxEvents ?? MAX_TIMELINE_EVENTS;
  const ids = new Set(timeline.ids);
  const events = timeline.events.slice();
  let { status, title, model, tasks, streaming, dropped } = timeline;
  for (const event of incoming) {
    if (event.kind === 'StreamingDeltaEvent') {
      streaming = {
        content: (streaming?.content ?? '') + (event.content ?? ''),
        reasoning: (streaming?.reasoning ?? '') + (event.reasoning_content ?? ''),
      };
      continue;
    }
    if (ids.has(event.id)) continue;
    ids.add(event.id);
    if (event.kind === 'ConversationStateUpdateEvent') {
      const state = stateOf(event.key, event.value);
      if (state.status !== undefined) status = state.status;
      if (state.title !== undefined) title = state.title;
      if (state.model !== undefined) model = state.model;
      if (state.status !== undefined && state.status !== 'running') streaming = null;
      continue;
    }
    if (endsAnswer(event)) streaming = null;
    const at = insertByTimestamp(events, event);
    if (at === events.length - 1) {
      const taskList = taskListOf(event);
      if (taskList) tasks = taskList;
    }
  }
  if (events.length > maxEvents) {
    const gone = events.splice(0, events.length - maxEvents);
    dropped += gone.length;
  }
  return {
    events,
    ids: ids.size > maxEvents * 2 ? new Set([...ids].slice(-maxEvents * 2)) : ids,
    status,
    title,
    model,
    tasks,
    streaming,
    dropped,
  };
}

/**
 * The actions waiting for the user's confirmation: when `status` is `waiting_for_confirmation`,
 * the action events of the newest model response (`llm_response_id`) that no observation,
 * rejection (`action_id`) or agent error (`tool_call_id`) answered yet; oldest first.
 */
export function pendingActionsOf(
  timeline: Pick<ConversationTimeline, 'status' | 'events'>,
): ActionEventWire[] {
  if (timeline.status !== 'waiting_for_confirmation') return [];
  const answered = new Set<string>();
  const failedCalls = new Set<string>();
  const pending: ActionEventWire[] = [];
  let responseId: string | undefined;
  for (let index = timeline.events.length - 1; index >= 0; index--) {
    const event = timeline.events[index] as TimelineEvent;
    if (event.kind === 'ObservationEvent' || event.kind === 'UserRejectObservation') {
      answered.add(event.action_id);
    } else if (event.kind === 'AgentErrorEvent') {
      failedCalls.add(event.tool_call_id);
    } else if (event.kind === 'ActionEvent') {
      responseId ??= event.llm_response_id;
      if (event.llm_response_id !== responseId) break;
      if (!answered.has(event.id) && !failedCalls.has(event.tool_call_id)) pending.push(event);
    }
  }
  return pending.reverse();
}

/** Whether an event ends the answer streaming in (it is the answer, or the run stopped). */
function endsAnswer(event: TimelineEvent): boolean {
  switch (event.kind) {
    case 'MessageEvent':
      return event.source === 'agent';
    case 'ActionEvent':
    case 'AgentErrorEvent':
    case 'ConversationErrorEvent':
    case 'PauseEvent':
      return true;
    default:
      return false;
  }
}

/** Inserts `event` after the last event not newer than it; returns its index. */
function insertByTimestamp(events: TimelineEvent[], event: TimelineEvent): number {
  let at = events.length;
  while (at > 0 && (events[at - 1] as TimelineEvent).timestamp > event.timestamp) at--;
  events.splice(at, 0, event);
  return at;
}

/** What a state update says about the header's fields (`undefined`: nothing). */
function stateOf(
  key: string,
  value: unknown,
): { status?: string; title?: string | null; model?: string | null } {
  if (key === 'execution_status') return typeof value === 'string' ? { status: value } : {};
  if (key === 'title') return typeof value === 'string' || value === null ? { title: value } : {};
  if (key === 'agent') return { model: modelOf(value) };
  if (key !== 'full_state' || !isRecord(value)) return {};
  return {
    ...(typeof value.execution_status === 'string' ? { status: value.execution_status } : {}),
    ...(typeof value.title === 'string' || value.title === null ? { title: value.title } : {}),
    ...('agent' in value ? { model: modelOf(value.agent) } : {}),
  };
}

/** `agent.llm.model` (`scripted` for a scripted model), or `null`. */
function modelOf(agent: unknown): string | null {
  return isRecord(agent) ? modelOfInfo({ agent }) : null;
}

/** The task list of a task tracker observation, or `undefined`. */
function taskListOf(event: TimelineEvent): TrackedTask[] | undefined {
  if (event.kind !== 'ObservationEvent') return undefined;
  const { observation } = event;
  if (observation.kind !== 'TaskTrackerObservation' || !Array.isArray(observation.task_list)) {
    return undefined;
  }
  return observation.task_list.filter(isRecord).map((task) => ({
    title: String(task.title ?? ''),
    notes: typeof task.notes === 'string' ? task.notes : '',
    status: String(task.status ?? 'todo'),
  }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
