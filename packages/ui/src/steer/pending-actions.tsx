import type { ActionEventWire } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol/constants';
import { useEffect, useId, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { actionArguments, riskOf } from './pending-action-summary.js';
import './steer.css';

/** Props of {@link PendingActions}. */
export interface PendingActionsProps {
  readonly conversationId: string;
  /** The actions waiting for confirmation (empty when none), oldest first. */
  readonly actions: readonly ActionEventWire[];
}

type Answer = 'approve' | 'reject';

/**
 * Each action waiting for confirmation with its tool, arguments and risk, and "Approve" /
 * "Reject". As in OpenHands, one answer covers every pending action; a rejection may give a
 * reason, which the agent is told.
 */
export function PendingActions({ conversationId, actions }: PendingActionsProps) {
  const client = useClient();
  const id = useId();
  const [reason, setReason] = useState('');
  const [pending, setPending] = useState<Answer | null>(null);
  const [answered, setAnswered] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = actions.map((action) => action.id).join(' ');

  // A new set of pending actions needs a new answer.
  useEffect(() => {
    setAnswered(false);
    setError(null);
  }, [ids]);

  if (actions.length === 0) return null;

  const respond = async (answer: Answer): Promise<void> => {
    setPending(answer);
    setError(null);
    const body =
      answer === 'approve'
        ? { accept: true }
        : { accept: false, ...(reason.trim() ? { reason: reason.trim() } : {}) };
    try {
      await client.json(
        conversationPath(AGENT_SERVER_ROUTES.respondToConfirmation, conversationId),
        {
          method: 'POST',
          body,
        },
      );
      setAnswered(true);
      setReason('');
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setPending(null);
    }
  };

  const several = actions.length > 1;
  return (
    <section class="pending-actions" aria-labelledby={`${id}-title`} aria-busy={pending !== null}>
      <h3 id={`${id}-title`}>Pending actions</h3>
      <p id={`${id}-note`} class="pending-note">
        {several
          ? `${actions.length} actions wait for your approval. One answer covers all of them: Approve runs every one, Reject rejects every one.`
          : 'This action waits for your approval before it runs.'}
      </p>
      <ul>
        {actions.map((action) => {
          const risk = riskOf(action);
          return (
            <li key={action.id} class="pending-action">
              <span class="pending-tool">{action.tool_name}</span>
              <span class={`risk risk-${risk.toLowerCase()}`}>Risk: {risk}</span>
              <code class="pending-arguments">{actionArguments(action)}</code>
            </li>
          );
        })}
      </ul>
      <label for={`${id}-reason`}>Reason</label>
      <input
        id={`${id}-reason`}
        type="text"
        value={reason}
        placeholder="Why you reject (optional; the agent is told)"
        onInput={(event) => setReason(event.currentTarget.value)}
      />
      <div class="steer-buttons">
        <button
          type="button"
          aria-describedby={`${id}-note`}
          disabled={pending !== null || answered}
          onClick={() => void respond('approve')}
        >
          Approve
        </button>
        <button
          type="button"
          class="danger"
          aria-describedby={`${id}-note`}
          disabled={pending !== null || answered}
          onClick={() => void respond('reject')}
        >
          Reject
        </button>
        {answered && <span class="steer-hint">Answer sent.</span>}
      </div>
      {error && (
        <p role="alert" class="steer-error">
          {error}
        </p>
      )}
    </section>
  );
}
