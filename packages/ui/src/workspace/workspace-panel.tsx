import { useRef, useState } from 'preact/hooks';
import { ChangesTab } from './changes-tab.js';
import { FilesTab } from './files-tab.js';
import { TerminalView } from './terminal-view.js';
import { useServerWorkingDir } from './use-server-working-dir.js';
import './workspace.css';

/** Props of {@link WorkspacePanel}. */
export interface WorkspacePanelProps {
  /** The selected conversation's working directory, or `null` for the server's. */
  readonly workingDir: string | null;
}

const TABS = [
  { id: 'files', label: 'Files' },
  { id: 'changes', label: 'Changes' },
  { id: 'terminal', label: 'Terminal' },
] as const;

type TabId = (typeof TABS)[number]['id'];

/**
 * The workspace beside the conversation (`<aside>` "Workspace"), in tabs: "Files" (a lazy tree
 * and a file viewer), "Changes" (git changes with their diffs) and "Terminal". A tab is mounted
 * when first shown and kept, so the terminal and the tree keep their state across tabs.
 */
export function WorkspacePanel(props: WorkspacePanelProps) {
  const { dir, error } = useServerWorkingDir(props.workingDir);
  const [selected, setSelected] = useState<TabId>('files');
  const [visited, setVisited] = useState<ReadonlySet<TabId>>(new Set(['files']));
  const tabs = useRef(new Map<TabId, HTMLButtonElement>());

  const choose = (id: TabId, focus: boolean): void => {
    setSelected(id);
    setVisited((seen) => new Set(seen).add(id));
    if (focus) tabs.current.get(id)?.focus();
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    const index = TABS.findIndex((tab) => tab.id === selected);
    const target =
      event.key === 'ArrowRight'
        ? (index + 1) % TABS.length
        : event.key === 'ArrowLeft'
          ? (index + TABS.length - 1) % TABS.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? TABS.length - 1
              : -1;
    const tab = TABS[target];
    if (!tab) return;
    event.preventDefault();
    choose(tab.id, true);
  };

  const body = (id: TabId) => {
    if (id === 'terminal') return <TerminalView workingDir={props.workingDir} />;
    if (error) return <p role="alert">{error}</p>;
    if (dir === null) return <p class="muted workspace-note">Loading…</p>;
    return id === 'files' ? <FilesTab key={dir} dir={dir} /> : <ChangesTab key={dir} dir={dir} />;
  };

  return (
    <aside aria-label="Workspace" class="panel workspace-panel">
      <div role="tablist" aria-label="Workspace views" class="workspace-tabs">
        {TABS.map((tab) => (
          <button
            key={tab.id}
            ref={(element) => {
              if (element) tabs.current.set(tab.id, element);
              else tabs.current.delete(tab.id);
            }}
            type="button"
            role="tab"
            id={`workspace-tab-${tab.id}`}
            aria-selected={tab.id === selected}
            aria-controls={`workspace-panel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            class="workspace-tab"
            onClick={() => choose(tab.id, false)}
            onKeyDown={onKeyDown}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {TABS.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`workspace-panel-${tab.id}`}
          aria-labelledby={`workspace-tab-${tab.id}`}
          hidden={tab.id !== selected}
          class="workspace-tabpanel"
        >
          {visited.has(tab.id) && body(tab.id)}
        </div>
      ))}
    </aside>
  );
}
