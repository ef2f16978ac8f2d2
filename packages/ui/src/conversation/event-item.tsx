import type { ActionEventWire, ObservationEventWire } from '@agent-workspace/protocol';
import { actionArguments } from './action-arguments.js';
import { AnsiOutput } from './ansi-output.js';
import type { StreamingText, TimelineEvent, TrackedTask } from './conversation-timeline.js';
import { FileDiff } from './file-diff.js';
import { LongText } from './long-text.js';
import { TaskList } from './task-list.js';

/** Props of {@link EventItem}. */
export interface EventItemProps {
  readonly event: TimelineEvent;
}

/** One conversation event as the list shows it. */
export function EventItem({ event }: EventItemProps) {
  switch (event.kind) {
    case 'MessageEvent': {
      const fromUser = event.source === 'user';
      return (
        <div class={`event message ${fromUser ? 'from-user' : 'from-agent'}`}>
          <div class="event-label">{fromUser ? 'You' : 'Agent'}</div>
          <LongText id={event.id} text={textOf(event.llm_message.content)} class="prose" />
        </div>
      );
    }
    case 'ActionEvent':
      return <ActionItem event={event} />;
    case 'ObservationEvent':
      return <ObservationItem event={event} />;
    case 'UserRejectObservation':
      return (
        <div class="event rejected">
          <div class="event-label">Rejected {event.tool_name}</div>
          <p>{event.rejection_reason}</p>
        </div>
      );
    case 'AgentErrorEvent':
      return (
        <div class="event is-error">
          <div class="event-label">Error in {event.tool_name}</div>
          <LongText id={event.id} text={event.error} />
        </div>
      );
    case 'ConversationErrorEvent':
    case 'ServerErrorEvent':
      return (
        <div class="event is-error">
          <div class="event-label">Error: {event.code}</div>
          <LongText id={event.id} text={event.detail} />
        </div>
      );
    case 'PauseEvent':
      return <div class="event note">Paused by the user</div>;
    case 'InterruptEvent':
      return <div class="event note">Interrupted</div>;
    case 'Condensation':
      return (
        <div class="event note">
          History condensed
          {event.summary ? <LongText id={event.id} text={event.summary} /> : null}
        </div>
      );
    case 'CondensationRequest':
      return <div class="event note">Condensation requested</div>;
    default:
      return <div class="event note">{(event as { kind: string }).kind}</div>;
  }
}

/** Props of {@link StreamingItem}. */
export interface StreamingItemProps {
  readonly streaming: StreamingText;
}

/** The model's answer as it streams in. */
export function StreamingItem({ streaming }: StreamingItemProps) {
  return (
    <div class="event message from-agent streaming" aria-busy="true">
      <div class="event-label">Agent (typing…)</div>
      {streaming.reasoning && <pre class="prose reasoning">{streaming.reasoning}</pre>}
      {streaming.content && <pre class="prose">{streaming.content}</pre>}
    </div>
  );
}

function ActionItem({ event }: { event: ActionEventWire }) {
  const thought = textOf(event.thought);
  const args = actionArguments(event.action, event.tool_call.arguments);
  const risk =
    event.security_risk && event.security_risk !== 'UNKNOWN' ? event.security_risk : null;
  return (
    <div class="event action">
      <div class="event-label">
        Tool call <code class="tool-name">{event.tool_name}</code>
        {risk && <span class={`risk risk-${risk.toLowerCase()}`}>risk {risk.toLowerCase()}</span>}
      </div>
      {thought && <LongText id={`${event.id}:thought`} text={thought} class="prose thought" />}
      {args.length > 0 && (
        <dl class="arguments">
          {args.map((arg) => (
            <div key={arg.name} class="argument">
              <dt>{arg.name}</dt>
              <dd>
                <LongText id={`${event.id}:${arg.name}`} text={arg.value} />
              </dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

function ObservationItem({ event }: { event: ObservationEventWire }) {
  const { observation } = event;
  const failed = observation.is_error;
  return (
    <div class={`event observation${failed ? ' is-error' : ''}`}>
      <div class="event-label">
        {failed ? 'Error from' : 'Result of'} <code class="tool-name">{event.tool_name}</code>
      </div>
      <ObservationBody event={event} />
    </div>
  );
}

function ObservationBody({ event }: { event: ObservationEventWire }) {
  const { observation } = event;
  const text = textOf(observation.content);
  if (observation.kind === 'TerminalObservation') {
    const output = typeof observation.output === 'string' ? observation.output : text;
    const exitCode = typeof observation.exit_code === 'number' ? observation.exit_code : null;
    return (
      <>
        <LongText
          id={event.id}
          text={output}
          class="terminal-output"
          render={(shown) => <AnsiOutput text={shown} />}
        />
        {exitCode !== null && (
          <p class={`exit-code${exitCode === 0 ? '' : ' failed'}`}>exit code {exitCode}</p>
        )}
        {observation.timeout === true && <p class="exit-code failed">timed out</p>}
      </>
    );
  }
  if (
    observation.kind === 'FileEditorObservation' &&
    typeof observation.new_content === 'string' &&
    typeof observation.path === 'string' &&
    observation.command !== 'view' &&
    !observation.is_error
  ) {
    return (
      <>
        <p class="diff-summary">
          {observation.old_content == null ? 'Created' : 'Edited'} <code>{observation.path}</code>
        </p>
        <FileDiff
          id={event.id}
          source={observation}
          path={observation.path}
          oldContent={typeof observation.old_content === 'string' ? observation.old_content : null}
          newContent={observation.new_content}
        />
      </>
    );
  }
  if (observation.kind === 'TaskTrackerObservation' && Array.isArray(observation.task_list)) {
    const tasks = observation.task_list as TrackedTask[];
    return <TaskList tasks={tasks} label="Updated tasks" />;
  }
  return <LongText id={event.id} text={text} />;
}

/** The text parts of a content list, images as `[image]`. */
function textOf(content: readonly { type?: string; text?: string }[]): string {
  return content.map((part) => (typeof part.text === 'string' ? part.text : '[image]')).join('\n');
}
