import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol/constants';
import { useId, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { steerControls } from './steer-controls.js';
import './steer.css';

/** Props of {@link SteerBar}. */
export interface SteerBarProps {
  readonly conversationId: string;
  /** The conversation's `execution_status` as last streamed (`idle`, `running`, `paused`, ...). */
  readonly status: string;
}

type Pending = 'send' | 'pause' | 'run' | null;

/**
 * Message box, "Send" (Ctrl/Cmd+Enter too), "Pause" and "Run" for one conversation. A sent
 * message starts a run; the box is cleared once the server took it and kept when it did not.
 */
export function SteerBar({ conversationId, status }: SteerBarProps) {
  const client = useClient();
  const id = useId();
  const [text, setText] = useState('');
  const [pending, setPending] = useState<Pending>(null);
  const [error, setError] = useState<string | null>(null);
  const controls = steerControls(status);

  const post = async (kind: Exclude<Pending, null>, route: string, body?: unknown) => {
    setPending(kind);
    setError(null);
    try {
      await client.json(conversationPath(route, conversationId), { method: 'POST', body });
      return true;
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return false;
    } finally {
      setPending(null);
    }
  };

  const send = async (): Promise<void> => {
    const message = text.trim();
    if (!message || pending) return;
    const body = { role: 'user', content: [{ type: 'text', text: message }], run: true };
    if (await post('send', AGENT_SERVER_ROUTES.conversationEvents, body)) setText('');
  };

  return (
    <form
      class="steer-bar"
      aria-label="Steer the conversation"
      aria-busy={pending !== null}
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label for={`${id}-message`}>Message</label>
      <textarea
        id={`${id}-message`}
        rows={2}
        value={text}
        placeholder="Tell the agent what to do next (Ctrl+Enter sends)"
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <div class="steer-buttons">
        <button type="submit" disabled={pending !== null || !text.trim()}>
          {pending === 'send' ? 'Sending…' : 'Send'}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={pending !== null || !controls.pause}
          onClick={() => void post('pause', AGENT_SERVER_ROUTES.pauseConversation)}
        >
          Pause
        </button>
        <button
          type="button"
          class="secondary"
          disabled={pending !== null || !controls.run}
          onClick={() => void post('run', AGENT_SERVER_ROUTES.runConversation)}
        >
          Run
        </button>
        {controls.hint && <span class="steer-hint">{controls.hint}</span>}
      </div>
      {error && (
        <p role="alert" class="steer-error">
          {error}
        </p>
      )}
    </form>
  );
}
