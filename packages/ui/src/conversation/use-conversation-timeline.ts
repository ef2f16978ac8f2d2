import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { ConversationEventsSocket, type EventsSocketState } from './conversation-events-socket.js';
import {
  applyEvents,
  type ConversationTimeline,
  EMPTY_TIMELINE,
  type StreamedEvent,
} from './conversation-timeline.js';

/** How long received events wait to be applied together, in ms (one render per batch). */
const BATCH_MS = 16;

/** A conversation's timeline and its events socket's state. */
export interface ConversationTimelineState {
  readonly timeline: ConversationTimeline;
  readonly connection: EventsSocketState;
}

/**
 * The live timeline of a conversation from its events socket, which is opened on mount,
 * reconnects after drops and is closed on unmount. Events are applied in batches so a replay of
 * thousands renders a few times, not thousands.
 */
export function useConversationTimeline(conversationId: string): ConversationTimelineState {
  const client = useClient();
  const [timeline, setTimeline] = useState(EMPTY_TIMELINE);
  const [connection, setConnection] = useState<EventsSocketState>({ kind: 'connecting' });
  useEffect(() => {
    let pending: StreamedEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      timer = undefined;
      const batch = pending;
      pending = [];
      setTimeline((current) => applyEvents(current, batch));
    };
    const socket = new ConversationEventsSocket({
      client,
      conversationId,
      onEvent: (event) => {
        pending.push(event);
        timer ??= setTimeout(flush, BATCH_MS);
      },
      onState: setConnection,
    });
    return () => {
      clearTimeout(timer);
      socket.close();
    };
  }, [client, conversationId]);
  return { timeline, connection };
}
