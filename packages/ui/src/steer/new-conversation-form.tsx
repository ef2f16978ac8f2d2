import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { useEffect, useId, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { describeStartError, startConversationBody } from './start-request.js';
import './steer.css';

/** Props of {@link NewConversationForm}. */
export interface NewConversationFormProps {
  /** Called with the new conversation's id once the server created it. */
  onCreated(id: string): void;
  onCancel(): void;
}

/** The tools ticked at first: the ones every coding agent needs and no runtime plugin serves. */
const DEFAULT_TOOLS = new Set(['TerminalTool', 'FileEditorTool', 'TaskTrackerTool']);

/** Always given to the agent (the SDK adds it), so not offered as a choice. */
const IMPLICIT_TOOL = 'FinishTool';

/**
 * Starts a conversation from the page: model, optional API key (sent once, never stored) and
 * base URL, working directory (the server's by default), tools, confirmation mode and a first
 * message that starts the run.
 */
export function NewConversationForm({ onCreated, onCancel }: NewConversationFormProps) {
  const client = useClient();
  const id = useId();
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [workingDir, setWorkingDir] = useState('');
  const [available, setAvailable] = useState<string[]>([]);
  const [tools, setTools] = useState<ReadonlySet<string>>(DEFAULT_TOOLS);
  const [confirmEveryAction, setConfirmEveryAction] = useState(false);
  const [firstMessage, setFirstMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    client.json<string[]>(AGENT_SERVER_ROUTES.tools, { signal }).then(
      (names) => setAvailable(names.filter((name) => name !== IMPLICIT_TOOL)),
      (failure: unknown) => {
        if (!signal.aborted)
          setError(
            `Cannot list the tools: ${String(failure instanceof Error ? failure.message : failure)}`,
          );
      },
    );
    // Our extension; without it the user types the directory.
    client.json<{ cwd: string }>(AGENT_SERVER_ROUTES.workspaceIdentity, { signal }).then(
      (identity) => setWorkingDir((typed) => typed || identity.cwd),
      () => {},
    );
    return () => controller.abort();
  }, [client]);

  const toggle = (name: string, on: boolean): void => {
    const next = new Set(tools);
    if (on) next.add(name);
    else next.delete(name);
    setTools(next);
  };

  const start = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const body = startConversationBody({
      model,
      apiKey,
      baseUrl,
      workingDir,
      tools: available.filter((name) => tools.has(name)),
      confirmEveryAction,
      firstMessage,
    });
    try {
      const info = await client.json<{ id: string }>(AGENT_SERVER_ROUTES.conversations, { body });
      setApiKey('');
      onCreated(info.id);
    } catch (failure) {
      setError(describeStartError(failure));
    } finally {
      setBusy(false);
    }
  };

  const field = (name: string): string => `${id}-${name}`;
  return (
    <form
      class="new-conversation"
      aria-label="New conversation"
      aria-busy={busy}
      onSubmit={(event) => {
        event.preventDefault();
        void start();
      }}
    >
      <label for={field('model')}>Model</label>
      <input
        id={field('model')}
        required
        autocomplete="off"
        placeholder="openai/gpt-4o-mini"
        value={model}
        onInput={(event) => setModel(event.currentTarget.value)}
      />
      <label for={field('key')}>API key</label>
      <input
        id={field('key')}
        type="password"
        autocomplete="off"
        placeholder="Optional; sent once, never stored"
        value={apiKey}
        onInput={(event) => setApiKey(event.currentTarget.value)}
      />
      <label for={field('base')}>Base URL</label>
      <input
        id={field('base')}
        type="url"
        autocomplete="off"
        placeholder="Optional, e.g. http://localhost:8000/v1"
        value={baseUrl}
        onInput={(event) => setBaseUrl(event.currentTarget.value)}
      />
      <label for={field('dir')}>Working directory</label>
      <input
        id={field('dir')}
        required
        autocomplete="off"
        value={workingDir}
        onInput={(event) => setWorkingDir(event.currentTarget.value)}
      />
      <fieldset>
        <legend>Tools</legend>
        {available.map((name) => (
          <label key={name} class="check">
            <input
              type="checkbox"
              checked={tools.has(name)}
              onChange={(event) => toggle(name, event.currentTarget.checked)}
            />
            {name}
          </label>
        ))}
        <p class="steer-hint">
          The agent can always finish. Browser and IPython need the server's runtime plugins.
        </p>
      </fieldset>
      <label class="check">
        <input
          type="checkbox"
          checked={confirmEveryAction}
          onChange={(event) => setConfirmEveryAction(event.currentTarget.checked)}
        />
        Confirm every action
      </label>
      <label for={field('first')}>First message</label>
      <textarea
        id={field('first')}
        rows={3}
        placeholder="Optional; starts the run"
        value={firstMessage}
        onInput={(event) => setFirstMessage(event.currentTarget.value)}
      />
      {error && (
        <p role="alert" class="steer-error">
          {error}
        </p>
      )}
      <div class="steer-buttons">
        <button type="submit" disabled={busy}>
          {busy ? 'Starting…' : 'Start'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
