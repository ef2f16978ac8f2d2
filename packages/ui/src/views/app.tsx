import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { AgentServerClient } from '../api/agent-server-client.js';
import { ApiError } from '../api/api-error.js';
import { type ConversationRow, listConversations } from '../api/list-conversations.js';
import { clearSessionKey, loadSessionKey, saveSessionKey } from '../api/session-key-store.js';
import { ClientContext } from '../app/client-context.js';
import { useSelectedConversation } from '../app/use-selected-conversation.js';
import { ConversationView } from '../conversation/conversation-view.js';
import { NewConversationForm } from '../steer/new-conversation-form.js';
import { WorkspacePanel } from '../workspace/workspace-panel.js';
import { ConversationList } from './conversation-list.js';

/** How often the conversation list refreshes while connected. */
const LIST_REFRESH_MS = 3000;

/**
 * The page: a connect form; once connected, the conversation list, the selected conversation
 * and its workspace. A key kept for this tab reconnects on reload.
 */
export function App() {
  const [key, setKey] = useState(loadSessionKey);
  const [client, setClient] = useState<AgentServerClient | null>(null);
  const [rows, setRows] = useState<ConversationRow[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [creating, setCreating] = useState(false);
  const [selectedId, select] = useSelectedConversation();

  const connectWith = useCallback(async (sessionKey: string) => {
    setBusy(true);
    setError(null);
    const candidate = new AgentServerClient({ sessionKey });
    try {
      setRows(await listConversations(candidate));
      saveSessionKey(sessionKey);
      setClient(candidate);
    } catch (failure) {
      setClient(null);
      if (failure instanceof ApiError && failure.unauthorized) clearSessionKey();
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }, []);

  useEffect(() => {
    const kept = loadSessionKey();
    if (kept) void connectWith(kept);
  }, [connectWith]);

  useEffect(() => {
    if (!client) return;
    const controller = new AbortController();
    const refresh = (): void => {
      listConversations(client, controller.signal).then(setRows, () => {});
    };
    const timer = setInterval(refresh, LIST_REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [client]);

  const disconnect = (): void => {
    clearSessionKey();
    setClient(null);
    setKey('');
    setRows([]);
  };

  const selected = useMemo(() => rows.find((row) => row.id === selectedId), [rows, selectedId]);

  return (
    <div class="page">
      <header class="top-bar">
        <h1>agent-workspace</h1>
        {client ? (
          <button type="button" class="secondary" onClick={disconnect}>
            Disconnect
          </button>
        ) : (
          <form
            class="connect"
            onSubmit={(event) => {
              event.preventDefault();
              void connectWith(key);
            }}
          >
            <label for="session-key">Session API key</label>
            <input
              id="session-key"
              type="password"
              autocomplete="off"
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
            />
            <button type="submit" disabled={busy}>
              Connect
            </button>
          </form>
        )}
      </header>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {client && (
        <ClientContext.Provider value={client}>
          <div class="layout">
            <nav aria-label="Conversation list" class="panel list-panel">
              <div class="panel-header">
                <h2>Conversations</h2>
                <button type="button" onClick={() => setCreating(true)}>
                  New conversation
                </button>
              </div>
              {creating && (
                <NewConversationForm
                  onCreated={(id) => {
                    setCreating(false);
                    select(id);
                    listConversations(client).then(setRows, () => {});
                  }}
                  onCancel={() => setCreating(false)}
                />
              )}
              <ConversationList rows={rows} selectedId={selectedId} onSelect={select} />
            </nav>
            {selectedId ? (
              <ConversationView key={selectedId} conversationId={selectedId} />
            ) : (
              <section aria-label="Conversation" class="panel conversation-panel empty">
                <p>Select a conversation to watch it.</p>
              </section>
            )}
            <WorkspacePanel workingDir={selected?.workingDir ?? null} />
          </div>
        </ClientContext.Provider>
      )}
    </div>
  );
}
