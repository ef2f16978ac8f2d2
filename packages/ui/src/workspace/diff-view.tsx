import type { GitChange, GitDiff } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { DiffLines } from '../render/diff-lines.js';
import { unifiedDiff } from '../render/unified-diff.js';
import { childPath } from './file-tree-rows.js';
import { messageOf } from './message-of.js';

/** Props of {@link DiffView}. */
export interface DiffViewProps {
  /** The repository directory the change's path is relative to. */
  readonly dir: string;
  readonly change: GitChange;
  /** Changes when the person asks for a refresh: the diff is read again. */
  readonly refreshKey: number;
}

/** Most diff lines drawn; a longer diff says how many are left out. */
const MAX_DIFF_LINES = 10_000;

/**
 * The unified diff of one changed file (region "Diff of <path>"), from the file's base and
 * current contents (`GET /api/git/diff`), with added and removed lines coloured.
 */
export function DiffView(props: DiffViewProps) {
  const { dir, change, refreshKey } = props;
  const client = useClient();
  const [contents, setContents] = useState<GitDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setContents(null);
    setError(null);
    client
      .json<GitDiff>(AGENT_SERVER_ROUTES.gitDiff, {
        query: { path: childPath(dir, change.path) },
        signal: controller.signal,
      })
      .then(setContents, (failure: unknown) => {
        if (!controller.signal.aborted) setError(messageOf(failure));
      });
    return () => controller.abort();
  }, [client, dir, change.path, refreshKey]);

  const diff = useMemo(() => (contents ? unifiedDiff(contents) : null), [contents]);

  return (
    <section aria-label={`Diff of ${change.path}`} class="diff-view">
      <h3 class="viewer-header">{change.path}</h3>
      {error && <p role="alert">{error}</p>}
      {!error && !diff && <p class="muted">Loading…</p>}
      {diff?.kind === 'same' && <p class="workspace-note">No difference in content.</p>}
      {diff?.kind === 'binary' && <p class="workspace-note">Binary file: no diff shown.</p>}
      {diff?.kind === 'too-large' && (
        <p class="workspace-note">This file is too large to diff here.</p>
      )}
      {diff?.kind === 'lines' && (
        <>
          <DiffLines class="diff" lines={diff.lines.slice(0, MAX_DIFF_LINES)} focusable />
          {diff.lines.length > MAX_DIFF_LINES && (
            <p class="workspace-note">
              {diff.lines.length - MAX_DIFF_LINES} more diff lines are not shown.
            </p>
          )}
        </>
      )}
    </section>
  );
}
