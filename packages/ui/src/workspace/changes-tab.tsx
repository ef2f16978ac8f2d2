import type { GitChange, GitChangeStatus, GitDiff } from '@agent-workspace/protocol';
import {
  AGENT_SERVER_ROUTES,
  GIT_CHANGES_TRUNCATED_HEADER,
} from '@agent-workspace/protocol/constants';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AgentServerClient } from '../api/agent-server-client.js';
import { useClient } from '../app/client-context.js';
import { DiffView } from './diff-view.js';
import { childPath } from './file-tree-rows.js';
import { messageOf } from './message-of.js';

/** Props of {@link ChangesTab}. */
export interface ChangesTabProps {
  /** Absolute path of the directory whose git changes are shown. */
  readonly dir: string;
}

/** What the changes list knows. */
type ChangesState =
  | { readonly kind: 'loading' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'not-a-repository' }
  | {
      readonly kind: 'changes';
      readonly changes: readonly GitChange[];
      /** The bound the server's repository search stopped at, if it did. */
      readonly truncation: string | null;
    };

const STATUS_WORDS: Record<GitChangeStatus, string> = {
  ADDED: 'added',
  DELETED: 'deleted',
  UPDATED: 'modified',
  MOVED: 'moved',
};

/**
 * The git changes of `dir` (`GET /api/git/changes`) as a list named "Git changes"; choosing one
 * shows its diff. A directory that is not in a git repository says so.
 */
export function ChangesTab(props: ChangesTabProps) {
  const { dir } = props;
  const client = useClient();
  const [state, setState] = useState<ChangesState>({ kind: 'loading' });
  const [selected, setSelected] = useState<string | null>(null);
  const [refreshKey, setRefreshKey] = useState(0);

  const load = useCallback(
    async (signal: AbortSignal) => {
      setState({ kind: 'loading' });
      try {
        const response = await client.request(AGENT_SERVER_ROUTES.gitChanges, {
          query: { path: dir },
          signal,
        });
        const changes = (await response.json()) as GitChange[];
        const truncation = response.headers.get(GIT_CHANGES_TRUNCATED_HEADER);
        if (changes.length === 0 && !(await isRepository(client, dir, signal))) {
          setState({ kind: 'not-a-repository' });
        } else setState({ kind: 'changes', changes, truncation });
      } catch (error) {
        if (!signal.aborted) setState({ kind: 'error', message: messageOf(error) });
      }
    },
    [client, dir],
  );
  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load, refreshKey]);

  const changes = state.kind === 'changes' ? state.changes : [];
  const change = changes.find((candidate) => candidate.path === selected);
  return (
    <div class="changes-tab">
      <div class="workspace-toolbar">
        <span class="workspace-path" title={dir}>
          {dir}
        </span>
        <button type="button" class="secondary" onClick={() => setRefreshKey((key) => key + 1)}>
          Refresh
        </button>
      </div>
      {state.kind === 'loading' && <p class="muted workspace-note">Loading…</p>}
      {state.kind === 'error' && <p role="alert">{state.message}</p>}
      {state.kind === 'not-a-repository' && (
        <p class="workspace-note">This directory is not in a git repository.</p>
      )}
      {state.kind === 'changes' && changes.length === 0 && (
        <p class="workspace-note">No changes.</p>
      )}
      {state.kind === 'changes' && state.truncation && (
        <p class="workspace-note">
          The server stopped looking for nested repositories early ({state.truncation}).
        </p>
      )}
      {changes.length > 0 && (
        <ul aria-label="Git changes" class="change-list">
          {changes.map((item) => (
            <li key={item.path}>
              <button
                type="button"
                class="change"
                aria-pressed={item.path === selected}
                onClick={() => setSelected(item.path)}
              >
                <span class={`change-status change-${item.status.toLowerCase()}`}>
                  {STATUS_WORDS[item.status]}
                </span>{' '}
                <span class="change-path">{item.path}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {change && <DiffView key={change.path} dir={dir} change={change} refreshKey={refreshKey} />}
    </div>
  );
}

/**
 * Whether `dir` is in a git repository: outside one, `GET /api/git/diff` answers both contents
 * `null` for any path; inside, a path that exists nowhere is refused.
 */
async function isRepository(
  client: AgentServerClient,
  dir: string,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    const probe = await client.json<GitDiff>(AGENT_SERVER_ROUTES.gitDiff, {
      query: { path: childPath(dir, `.agent-workspace-probe-${Date.now()}`) },
      signal,
    });
    return probe.modified !== null || probe.original !== null;
  } catch (error) {
    if (signal.aborted) throw error;
    return true;
  }
}
