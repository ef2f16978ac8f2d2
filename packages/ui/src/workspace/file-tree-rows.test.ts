import type { DirectoryEntryWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { type DirectoryState, treeKeyAction, treeRows } from './file-tree-rows.js';

const dir = (name: string): DirectoryEntryWire => ({ name, type: 'directory', size: null });
const file = (name: string): DirectoryEntryWire => ({ name, type: 'file', size: 1 });
const loaded = (
  entries: DirectoryEntryWire[],
  more: Partial<DirectoryState> = {},
): DirectoryState => ({
  entries,
  nextPageId: null,
  truncated: false,
  loading: false,
  error: null,
  ...more,
});

const directories = new Map<string, DirectoryState>([
  ['/w', loaded([dir('src'), file('a.txt')])],
  ['/w/src', loaded([file('main.ts')], { nextPageId: 'e/n' })],
]);

describe('treeRows', () => {
  it('shows a closed tree as its top level', () => {
    const rows = treeRows({ root: '/w', directories, expanded: new Set() });
    expect(rows.map((row) => [row.kind, row.path])).toEqual([
      ['entry', '/w/src'],
      ['entry', '/w/a.txt'],
    ]);
  });

  it('shows an open directory’s entries below it, one level deeper, with Load more', () => {
    const rows = treeRows({ root: '/w', directories, expanded: new Set(['/w/src']) });
    expect(rows.map((row) => [row.kind, row.path, row.level])).toEqual([
      ['entry', '/w/src', 1],
      ['entry', '/w/src/main.ts', 2],
      ['more', '/w/src\0more', 2],
      ['entry', '/w/a.txt', 1],
    ]);
    expect(rows[0]).toMatchObject({ expanded: true, position: 1, siblings: 2 });
  });

  it('says Loading…, an error or Empty for a directory without entries to show', () => {
    const rows = (state: DirectoryState | undefined) =>
      treeRows({
        root: '/r',
        directories: new Map(state ? [['/r', state]] : []),
        expanded: new Set(),
      }).map((row) => (row.kind === 'status' ? row.text : row.kind));
    expect(rows(undefined)).toEqual(['Loading…']);
    expect(rows(loaded([]))).toEqual(['Empty']);
    expect(rows(loaded([file('x')], { error: 'boom' }))).toEqual(['entry', 'boom']);
  });
});

describe('treeKeyAction', () => {
  const rows = treeRows({ root: '/w', directories, expanded: new Set(['/w/src']) });

  it('moves with Up, Down, Home and End across focusable rows', () => {
    expect(treeKeyAction(rows, '/w/src', 'ArrowDown')).toEqual({
      kind: 'focus',
      path: '/w/src/main.ts',
    });
    expect(treeKeyAction(rows, '/w/src/main.ts', 'ArrowDown')).toEqual({
      kind: 'focus',
      path: '/w/src\0more',
    });
    expect(treeKeyAction(rows, '/w/src', 'ArrowUp')).toBeNull();
    expect(treeKeyAction(rows, '/w/src', 'End')).toEqual({ kind: 'focus', path: '/w/a.txt' });
    expect(treeKeyAction(rows, '/w/a.txt', 'Home')).toEqual({ kind: 'focus', path: '/w/src' });
  });

  it('opens, enters, closes and leaves directories with Right and Left', () => {
    const closed = treeRows({ root: '/w', directories, expanded: new Set() });
    expect(treeKeyAction(closed, '/w/src', 'ArrowRight')).toEqual({
      kind: 'expand',
      path: '/w/src',
    });
    expect(treeKeyAction(rows, '/w/src', 'ArrowRight')).toEqual({
      kind: 'focus',
      path: '/w/src/main.ts',
    });
    expect(treeKeyAction(rows, '/w/src', 'ArrowLeft')).toEqual({
      kind: 'collapse',
      path: '/w/src',
    });
    expect(treeKeyAction(rows, '/w/src/main.ts', 'ArrowLeft')).toEqual({
      kind: 'focus',
      path: '/w/src',
    });
    expect(treeKeyAction(rows, '/w/a.txt', 'ArrowRight')).toBeNull();
  });

  it('activates with Enter and Space, and ignores other keys', () => {
    expect(treeKeyAction(rows, '/w/a.txt', 'Enter')).toEqual({
      kind: 'activate',
      path: '/w/a.txt',
    });
    expect(treeKeyAction(rows, '/w/src\0more', ' ')).toEqual({
      kind: 'activate',
      path: '/w/src\0more',
    });
    expect(treeKeyAction(rows, '/w/a.txt', 'x')).toBeNull();
  });
});
