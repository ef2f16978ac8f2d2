import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { StatusBadge } from '../render/status-badge.js';
import { PendingActions } from '../steer/pending-actions.js';
import { SteerBar } from '../steer/steer-bar.js';
import './conversation.css';
import type { EventsSocketState } from './conversation-events-socket.js';
import {
  pendingActionsOf,
  type StreamingText,
  type TimelineEvent,
} from './conversation-timeline.js';
import { EventItem, StreamingItem } from './event-item.js';
import { type ShownInFull, ShownInFullContext } from './long-text.js';
import { TaskList } from './task-list.js';
import { useConversationTimeline } from './use-conversation-timeline.js';
import { useVirtualizer } from './use-virtualizer.js';

/** Props of {@link ConversationView}. */
export interface ConversationViewProps {
  readonly conversationId: string;
}

/** Key of the live "typing" item at the end of the list. */
const STREAMING_KEY = 'streaming';

/** Within this many pixels of the end, the list follows new events. */
const FOLLOW_THRESHOLD_PX = 48;

/**
 * One conversation, streamed live from its events socket: a header (title, status, model), the
 * agent's task list, a virtualised event list that follows the end while the user is there, the
 * actions waiting for confirmation and the steer bar.
 */
export function ConversationView({ conversationId }: ConversationViewProps) {
  const { timeline, connection } = useConversationTimeline(conversationId);
  const { status: known, events } = timeline;
  const pending = useMemo(() => pendingActionsOf({ status: known, events }), [known, events]);
  const status = known ?? 'unknown';
  return (
    <section aria-label="Conversation" class="panel conversation-panel">
      <header class="conversation-header">
        <h2>{timeline.title ?? `Conversation ${conversationId.slice(0, 8)}`}</h2>
        <StatusBadge status={status} />
        {timeline.model && <span class="model">{timeline.model}</span>}
        <ConnectionNote connection={connection} />
      </header>
      {timeline.tasks.length > 0 && (
        <details class="tasks" open>
          <summary>Tasks</summary>
          <TaskList tasks={timeline.tasks} label="Task list" />
        </details>
      )}
      <EventLog events={events} streaming={timeline.streaming} dropped={timeline.dropped} />
      <PendingActions conversationId={conversationId} actions={pending} />
      <SteerBar conversationId={conversationId} status={status} />
    </section>
  );
}

function ConnectionNote({ connection }: { connection: EventsSocketState }) {
  if (connection.kind === 'failed') {
    return (
      <p role="alert" class="connection error">
        {connection.message}
      </p>
    );
  }
  if (connection.kind === 'reconnecting') {
    return (
      <span role="status" class="connection">
        Connection lost; reconnecting…
      </span>
    );
  }
  return null;
}

interface EventLogProps {
  readonly events: readonly TimelineEvent[];
  readonly streaming: StreamingText | null;
  readonly dropped: number;
}

/** The events as a virtualised log that sticks to its end while the user is at the end. */
function EventLog({ events, streaming, dropped }: EventLogProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [shownInFull, setShownInFull] = useState<ReadonlySet<string>>(new Set());
  const toggle = useCallback((id: string) => {
    setShownInFull((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }, []);
  const shown = useMemo<ShownInFull>(
    () => ({ has: (id) => shownInFull.has(id), toggle }),
    [shownInFull, toggle],
  );
  const count = events.length + (streaming ? 1 : 0);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    getItemKey: (index) => events[index]?.id ?? STREAMING_KEY,
    overscan: 6,
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: FOLLOW_THRESHOLD_PX,
  });
  const atEnd = count === 0 || virtualizer.isAtEnd(FOLLOW_THRESHOLD_PX);
  return (
    <div class="event-log-frame">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be keyboard-scrollable */}
      <div ref={scroller} class="event-log" role="log" aria-label="Events" tabIndex={0}>
        {dropped > 0 && <p class="muted dropped">{dropped} older events are not shown.</p>}
        {count === 0 && <p class="muted">No events yet.</p>}
        <ShownInFullContext.Provider value={shown}>
          <div class="event-log-space" style={{ height: `${virtualizer.getTotalSize()}px` }}>
            {virtualizer.getVirtualItems().map((item) => {
              const event = events[item.index];
              return (
                <div
                  key={item.key}
                  data-index={item.index}
                  data-event-id={event?.id}
                  ref={virtualizer.measureElement}
                  class="event-row"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  {event ? (
                    <EventItem event={event} />
                  ) : (
                    streaming && <StreamingItem streaming={streaming} />
                  )}
                </div>
              );
            })}
          </div>
        </ShownInFullContext.Provider>
      </div>
      {!atEnd && (
        <button type="button" class="jump-to-end" onClick={() => virtualizer.scrollToEnd()}>
          Jump to latest
        </button>
      )}
    </div>
  );
}
