import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { parseNameStatus, parseNameStatusRecords, splitNul } from './parse-name-status.js';

describe('splitNul', () => {
  it('returns no records for empty output', () => {
    expect(splitNul('')).toEqual([]);
  });

  it('keeps whitespace, quotes and newlines inside records', () => {
    expect(splitNul('a b\0tab\there\0new\nline\0"q"\0')).toEqual([
      'a b',
      'tab\there',
      'new\nline',
      '"q"',
    ]);
  });

  it('keeps a last record that has no terminator', () => {
    expect(splitNul('a\0b')).toEqual(['a', 'b']);
  });
});

describe('parseNameStatus', () => {
  it('maps every status letter and reports renames at their new path', () => {
    const output = [
      'M',
      'dir/with space.txt',
      'A',
      'naïve\tfile',
      'D',
      'gone\nline',
      'R087',
      'old name',
      'new name',
      'C100',
      'source',
      'copy',
      'T',
      'type-change',
      'U',
      'conflict',
      'X',
      'unknown',
      '',
    ].join('\0');
    expect(parseNameStatus(output)).toEqual([
      { status: 'UPDATED', path: 'dir/with space.txt' },
      { status: 'ADDED', path: 'naïve\tfile' },
      { status: 'DELETED', path: 'gone\nline' },
      { status: 'MOVED', path: 'new name' },
      { status: 'ADDED', path: 'copy' },
      { status: 'UPDATED', path: 'type-change' },
      { status: 'UPDATED', path: 'conflict' },
      { status: 'UPDATED', path: 'unknown' },
    ]);
  });

  it('keeps the old path of renames and copies in the records', () => {
    expect(parseNameStatusRecords('R100\0a\0b\0C050\0c\0d\0M\0e\0')).toEqual([
      { status: 'R100', path: 'b', fromPath: 'a' },
      { status: 'C050', path: 'd', fromPath: 'c' },
      { status: 'M', path: 'e' },
    ]);
  });

  it('does not mistake a path that looks like a status for one', () => {
    expect(parseNameStatus('M\0R100\0A\0M\0')).toEqual([
      { status: 'UPDATED', path: 'R100' },
      { status: 'ADDED', path: 'M' },
    ]);
  });

  it.each([
    ['a rename without its new path', 'R100\0old\0'],
    ['a status without a path', 'M\0'],
    ['a malformed status token', 'modified\0file\0'],
  ])('rejects %s as GIT_ERROR', (_name, output) => {
    let caught: unknown;
    try {
      parseNameStatus(output);
    } catch (error) {
      caught = error;
    }
    expect(WorkspaceError.isInstance(caught, 'GIT_ERROR')).toBe(true);
  });
});
