import type { DirectoryEntryWire } from '@agent-workspace/protocol';

/** What the tree knows of one directory: the pages loaded so far. */
export interface DirectoryState {
  readonly entries: readonly DirectoryEntryWire[];
  /** Id of the next page, `null` once every page is loaded. */
  readonly nextPageId: string | null;
  /** The server stopped reading the directory at its scan limit. */
  readonly truncated: boolean;
  readonly loading: boolean;
  readonly error: string | null;
}

/** One visible row of the flattened tree. */
export type TreeRow =
  | {
      readonly kind: 'entry';
      /** Absolute path of the entry. */
      readonly path: string;
      readonly entry: DirectoryEntryWire;
      /** 1 for the working directory's entries. */
      readonly level: number;
      /** Absolute path of the directory the entry is in. */
      readonly parent: string;
      /** Position among its siblings, from 1, and their count (as loaded). */
      readonly position: number;
      readonly siblings: number;
      /** For a directory: whether it is open. */
      readonly expanded: boolean;
    }
  | {
      /** "Load more" of a directory with further pages. */
      readonly kind: 'more';
      /** Key of the row: the directory's path, a NUL and `more` (no file name holds a NUL). */
      readonly path: string;
      readonly level: number;
      readonly parent: string;
    }
  | {
      /** "Loading…", an error, or "Empty" of a directory (not focusable). */
      readonly kind: 'status';
      /** Key of the row: the directory's path, a NUL and `status`. */
      readonly path: string;
      readonly level: number;
      readonly text: string;
      readonly error: boolean;
    };

/** The absolute path of `name` in the directory `dir`. */
export function childPath(dir: string, name: string): string {
  return `${dir === '/' ? '' : dir}/${name}`;
}

/** Options of {@link treeRows}. */
export interface TreeRowsOptions {
  /** The tree's root directory. */
  readonly root: string;
  readonly directories: ReadonlyMap<string, DirectoryState>;
  /** Absolute paths of the open directories. */
  readonly expanded: ReadonlySet<string>;
}

/** The visible rows of the tree, depth first: open directories show their loaded entries. */
export function treeRows(options: TreeRowsOptions): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (dir: string, level: number): void => {
    const state = options.directories.get(dir);
    if (!state || (state.loading && state.entries.length === 0)) {
      rows.push({ kind: 'status', path: `${dir}\0status`, level, text: 'Loading…', error: false });
      return;
    }
    state.entries.forEach((entry, index) => {
      const path = childPath(dir, entry.name);
      const expanded = entry.type === 'directory' && options.expanded.has(path);
      rows.push({
        kind: 'entry',
        path,
        entry,
        level,
        parent: dir,
        position: index + 1,
        siblings: state.entries.length,
        expanded,
      });
      if (expanded) visit(path, level + 1);
    });
    if (state.error) {
      rows.push({ kind: 'status', path: `${dir}\0status`, level, text: state.error, error: true });
    } else if (state.loading) {
      rows.push({ kind: 'status', path: `${dir}\0status`, level, text: 'Loading…', error: false });
    } else if (state.nextPageId !== null) {
      rows.push({ kind: 'more', path: `${dir}\0more`, level, parent: dir });
    } else if (state.entries.length === 0) {
      rows.push({ kind: 'status', path: `${dir}\0status`, level, text: 'Empty', error: false });
    }
  };
  visit(options.root, 1);
  return rows;
}

/** What a key press on a focused row asks for. */
export type TreeKeyAction =
  | { readonly kind: 'focus'; readonly path: string }
  | { readonly kind: 'expand'; readonly path: string }
  | { readonly kind: 'collapse'; readonly path: string }
  | { readonly kind: 'activate'; readonly path: string };

/**
 * The action of `key` on the row `path` (the WAI-ARIA tree pattern): Up/Down move between
 * focusable rows, Home/End to the first/last, Right opens a closed directory or enters an open
 * one, Left closes an open directory or goes to the parent, Enter and Space activate (open a
 * file, toggle a directory, load more). `null` for other keys.
 */
export function treeKeyAction(
  rows: readonly TreeRow[],
  path: string,
  key: string,
): TreeKeyAction | null {
  const focusable = rows.filter((row) => row.kind !== 'status');
  const index = focusable.findIndex((row) => row.path === path);
  const row = focusable[index];
  if (!row) return null;
  const focusAt = (at: number): TreeKeyAction | null => {
    const target = focusable[at];
    return target && target !== row ? { kind: 'focus', path: target.path } : null;
  };
  switch (key) {
    case 'ArrowDown':
      return focusAt(index + 1);
    case 'ArrowUp':
      return focusAt(index - 1);
    case 'Home':
      return focusAt(0);
    case 'End':
      return focusAt(focusable.length - 1);
    case 'ArrowRight':
      if (row.kind !== 'entry' || row.entry.type !== 'directory') return null;
      return row.expanded ? focusAt(index + 1) : { kind: 'expand', path: row.path };
    case 'ArrowLeft':
      if (row.kind === 'entry' && row.expanded) return { kind: 'collapse', path: row.path };
      return focusable.some((other) => other.path === row.parent)
        ? { kind: 'focus', path: row.parent }
        : null;
    case 'Enter':
    case ' ':
      return { kind: 'activate', path: row.path };
    default:
      return null;
  }
}
