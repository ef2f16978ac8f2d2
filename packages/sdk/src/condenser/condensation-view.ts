import type { CondensationEventWire, ConversationEventWire } from '@agent-workspace/protocol';

/** The events a model is shown: messages, actions, observations, rejections and agent errors. */
export type ViewEvent = Extract<
  ConversationEventWire,
  {
    kind:
      | 'MessageEvent'
      | 'ActionEvent'
      | 'ObservationEvent'
      | 'UserRejectObservation'
      | 'AgentErrorEvent';
  }
>;

/** What the model is shown of a history once its condensations are applied. */
export interface CondensedView {
  /** The events left, oldest first, each summary as a user `MessageEvent` in its place. */
  events: ViewEvent[];
  /** True when a `CondensationRequest` came after the last `Condensation`. */
  requested: boolean;
}

/** True for the events a model is shown. */
export function isViewEvent(event: ConversationEventWire): event is ViewEvent {
  return (
    event.kind === 'MessageEvent' ||
    event.kind === 'ActionEvent' ||
    event.kind === 'ObservationEvent' ||
    event.kind === 'UserRejectObservation' ||
    event.kind === 'AgentErrorEvent'
  );
}

/**
 * Applies the recorded `Condensation`s to `events` in order, as OpenHands' view does: each one
 * drops its `forgotten_event_ids` from what is shown so far and, with a summary and an offset,
 * puts the summary there as a user message (id `<condensation id>-summary`, so a later
 * condensation can forget it in turn).
 */
export function condensedView(events: readonly ConversationEventWire[]): CondensedView {
  let shown: ViewEvent[] = [];
  let requested = false;
  for (const event of events) {
    if (isViewEvent(event)) shown.push(event);
    else if (event.kind === 'CondensationRequest') requested = true;
    else if (event.kind === 'Condensation') {
      shown = applyCondensation(shown, event);
      requested = false;
    }
  }
  return { events: shown, requested };
}

/** `shown` without the events `condensation` forgets, with its summary at its offset. */
export function applyCondensation(
  shown: readonly ViewEvent[],
  condensation: CondensationEventWire,
): ViewEvent[] {
  const forgotten = new Set(condensation.forgotten_event_ids);
  const kept = shown.filter((event) => !forgotten.has(event.id));
  const { summary, summary_offset: offset } = condensation;
  if (summary !== null && summary !== undefined && offset !== null && offset !== undefined) {
    kept.splice(Math.min(offset, kept.length), 0, {
      kind: 'MessageEvent',
      id: `${condensation.id}-summary`,
      timestamp: condensation.timestamp,
      source: 'environment',
      llm_message: { role: 'user', content: [{ type: 'text', text: summary }] },
    } as ViewEvent);
  }
  return kept;
}

/**
 * Where a view may be cut without separating a model response's tool calls from one another or
 * from their results: index `i` (cut before `view[i]`) is a boundary when every call made before
 * it was answered before it. `view.length` is always one.
 */
export function cutPoints(view: readonly ViewEvent[]): boolean[] {
  const points: boolean[] = [];
  const pending = new Set<string>();
  let lastResponse: string | undefined;
  for (const event of view) {
    const sameResponse =
      event.kind === 'ActionEvent' &&
      lastResponse !== undefined &&
      event.llm_response_id === lastResponse;
    points.push(pending.size === 0 && !sameResponse);
    if (event.kind === 'ActionEvent') {
      pending.add(event.tool_call_id);
      lastResponse = event.llm_response_id;
    } else {
      if (event.kind === 'ObservationEvent' || event.kind === 'AgentErrorEvent') {
        pending.delete(event.tool_call_id);
      }
      lastResponse = undefined;
    }
  }
  points.push(true);
  return points;
}

/** The first cut point at or after `index` (at most `view.length`). */
export function nextCutPoint(points: readonly boolean[], index: number): number {
  for (let at = Math.max(0, index); at < points.length; at++) if (points[at]) return at;
  return points.length - 1;
}
