import type { DirectoryEntryWire, DirectoryListingPageWire } from '@agent-workspace/protocol';
import { DIRECTORY_LISTING_ROUTE } from '@agent-workspace/protocol/constants';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { formatBytes } from './file-preview.js';
import { type DirectoryState, type TreeRow, treeKeyAction, treeRows } from './file-tree-rows.js';
import { messageOf } from './message-of.js';

/** Props of {@link FileTree}. */
export interface FileTreeProps {
  /** Absolute path of the directory at the top of the tree. */
  readonly root: string;
  /** List names starting with `.` too. */
  readonly includeHidden: boolean;
  /** Changes when the person asks for a refresh: every loaded directory is read again. */
  readonly refreshKey: number;
  /** The file shown in the viewer, marked selected. */
  readonly selectedPath: string | null;
  /** A file (or link, or other non-directory) was activated. */
  readonly onOpen: (path: string, entry: DirectoryEntryWire) => void;
}

/** Entries asked for per page. */
const PAGE_LIMIT = 200;

/**
 * A lazy tree of the files under `root` (`role="tree"` named "Files"): a directory's entries are
 * listed (`GET /api/workspace/list_directory`) when it is first opened, a page at a time with
 * "Load more". Mouse and keyboard (arrows, Home, End, Enter, Space) as the WAI-ARIA tree pattern.
 */
export function FileTree(props: FileTreeProps) {
  const { root, includeHidden, refreshKey, selectedPath, onOpen } = props;
  const client = useClient();
  const [directories, setDirectories] = useState<ReadonlyMap<string, DirectoryState>>(new Map());
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [focused, setFocused] = useState<string | null>(null);
  const items = useRef(new Map<string, HTMLElement>());
  /** The row a key asked to focus, until it is rendered and focused. */
  const focusRequest = useRef<string | null>(null);
  // Answers of an earlier generation (before a refresh or a new root) are dropped.
  const generation = useRef(0);
  const expandedRef = useRef(expanded);
  expandedRef.current = expanded;

  const update = useCallback((dir: string, change: (state: DirectoryState) => DirectoryState) => {
    setDirectories((current) => {
      const next = new Map(current);
      next.set(dir, change(current.get(dir) ?? EMPTY));
      return next;
    });
  }, []);

  const load = useCallback(
    async (dir: string, pageId: string | null) => {
      const mine = generation.current;
      update(dir, (state) => ({ ...state, loading: true, error: null }));
      try {
        const page = await client.json<DirectoryListingPageWire>(DIRECTORY_LISTING_ROUTE, {
          query: {
            path: dir,
            limit: PAGE_LIMIT,
            include_hidden: includeHidden,
            page_id: pageId ?? undefined,
          },
        });
        if (mine !== generation.current) return;
        update(dir, (state) => ({
          entries: pageId === null ? page.items : [...state.entries, ...page.items],
          nextPageId: page.next_page_id,
          truncated: page.truncated,
          loading: false,
          error: null,
        }));
      } catch (error) {
        if (mine !== generation.current) return;
        update(dir, (state) => ({ ...state, loading: false, error: messageOf(error) }));
      }
    },
    [client, includeHidden, update],
  );

  // A new root, hidden-file choice or refresh: read the root and every open directory again.
  useEffect(() => {
    generation.current++;
    setDirectories(new Map());
    void load(root, null);
    for (const dir of expandedRef.current) void load(dir, null);
  }, [root, load, refreshKey]);

  const rows = useMemo(
    () => treeRows({ root, directories, expanded }),
    [root, directories, expanded],
  );
  const focusable = rows.filter((row) => row.kind !== 'status');
  const current = focusable.find((row) => row.path === focused)?.path ?? focusable[0]?.path;

  // Reads the request and the rendered rows, not this render's values: the effect of a render
  // made before the key press may run after it, and must not focus that render's row.
  useEffect(() => {
    const path = focusRequest.current;
    const element = path === null ? undefined : items.current.get(path);
    if (element === undefined) return;
    focusRequest.current = null;
    element.focus();
  });

  const expand = (path: string): void => {
    setExpanded((open) => new Set(open).add(path));
    const state = directories.get(path);
    if (!state || (state.error !== null && state.entries.length === 0)) void load(path, null);
  };
  const collapse = (path: string): void => {
    setExpanded((open) => {
      const next = new Set(open);
      next.delete(path);
      return next;
    });
  };
  const activate = (row: TreeRow): void => {
    if (row.kind === 'more') {
      const state = directories.get(row.parent);
      if (state && !state.loading && state.nextPageId !== null) {
        void load(row.parent, state.nextPageId);
      }
    } else if (row.kind === 'entry') {
      if (row.entry.type !== 'directory') onOpen(row.path, row.entry);
      else if (row.expanded) collapse(row.path);
      else expand(row.path);
    }
  };

  const onKeyDown = (event: KeyboardEvent, row: TreeRow): void => {
    const action = treeKeyAction(rows, row.path, event.key);
    if (!action) return;
    event.preventDefault();
    switch (action.kind) {
      case 'focus':
        focusRequest.current = action.path;
        setFocused(action.path);
        break;
      case 'expand':
        expand(action.path);
        break;
      case 'collapse':
        collapse(action.path);
        break;
      case 'activate':
        activate(row);
        break;
    }
  };

  const rootState = directories.get(root);
  return (
    <>
      <div role="tree" aria-label="Files" class="file-tree">
        {rows.map((row) => {
          const style = { '--level': row.level - 1 };
          if (row.kind === 'status') {
            return (
              <div
                key={row.path}
                role="treeitem"
                tabIndex={-1}
                aria-level={row.level}
                aria-disabled="true"
                class={`tree-status${row.error ? ' error' : ''}`}
                style={style}
              >
                {row.text}
              </div>
            );
          }
          const common = {
            ref: (element: HTMLElement | null) => {
              if (element) items.current.set(row.path, element);
              else items.current.delete(row.path);
            },
            'aria-level': row.level,
            style,
            onKeyDown: (event: KeyboardEvent) => onKeyDown(event, row),
            onClick: () => {
              setFocused(row.path);
              activate(row);
            },
          };
          if (row.kind === 'more') {
            return (
              <div
                key={row.path}
                role="treeitem"
                tabIndex={row.path === current ? 0 : -1}
                class="tree-more"
                {...common}
              >
                Load more
              </div>
            );
          }
          const { entry } = row;
          const isDirectory = entry.type === 'directory';
          return (
            <div
              key={row.path}
              role="treeitem"
              tabIndex={row.path === current ? 0 : -1}
              aria-label={entry.name}
              aria-posinset={row.position}
              aria-setsize={row.siblings}
              aria-expanded={isDirectory ? row.expanded : undefined}
              aria-selected={isDirectory ? undefined : row.path === selectedPath}
              class={`tree-entry tree-${entry.type}`}
              title={entry.type === 'symlink' ? `${entry.name} (symbolic link)` : entry.name}
              {...common}
            >
              <span class="tree-icon" aria-hidden="true">
                {ICONS[entry.type](row.expanded)}
              </span>
              <span class="tree-name">{entry.name}</span>
              {entry.size !== null && (
                <span class="tree-size" aria-hidden="true">
                  {formatBytes(entry.size)}
                </span>
              )}
            </div>
          );
        })}
      </div>
      {rootState?.truncated && (
        <p class="workspace-note">
          This directory is very large: only the entries the server read first are listed.
        </p>
      )}
    </>
  );
}

const EMPTY: DirectoryState = {
  entries: [],
  nextPageId: null,
  truncated: false,
  loading: false,
  error: null,
};

const ICONS: Record<DirectoryEntryWire['type'], (open: boolean) => string> = {
  directory: (open) => (open ? '▾' : '▸'),
  file: () => '·',
  symlink: () => '↪',
  other: () => '◇',
};
