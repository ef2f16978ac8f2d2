import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './unified-diff.js';

describe('unifiedDiff', () => {
  it('marks removed and added lines inside a hunk with context', () => {
    const diff = unifiedDiff({
      original: 'one\ntwo\nthree\nfour\n',
      modified: 'one\nTWO\nthree\nfour\nfive\n',
    });
    expect(diff).toEqual({
      kind: 'lines',
      lines: [
        { kind: 'hunk', text: '@@ -1,4 +1,5 @@' },
        { kind: 'context', text: ' one' },
        { kind: 'del', text: '-two' },
        { kind: 'add', text: '+TWO' },
        { kind: 'context', text: ' three' },
        { kind: 'context', text: ' four' },
        { kind: 'add', text: '+five' },
      ],
    });
  });

  it('treats a missing side as empty: a new file is all additions', () => {
    const diff = unifiedDiff({ original: null, modified: 'a\nb\n' });
    expect(diff.kind === 'lines' && diff.lines.map((line) => line.kind)).toEqual([
      'hunk',
      'add',
      'add',
    ]);
  });

  it('notes a missing newline at the end', () => {
    const diff = unifiedDiff({ original: 'a\n', modified: 'a' });
    expect(diff.kind === 'lines' && diff.lines.some((line) => line.kind === 'note')).toBe(true);
  });

  it('reports identical, binary and oversized versions instead of lines', () => {
    expect(unifiedDiff({ original: 'same', modified: 'same' })).toEqual({ kind: 'same' });
    expect(unifiedDiff({ original: 'a\0b', modified: 'a' })).toEqual({ kind: 'binary' });
    expect(unifiedDiff({ original: 'x'.repeat(20), modified: 'y', maxChars: 10 })).toEqual({
      kind: 'too-large',
    });
  });

  it('shows a created file (no original) as all lines added', () => {
    const diff = unifiedDiff({ original: null, modified: 'a\nb' });
    if (diff.kind !== 'lines') throw new Error(`expected lines, got ${diff.kind}`);
    expect(diff.lines.filter((line) => line.kind === 'add').map((line) => line.text)).toEqual([
      '+a',
      '+b',
    ]);
    expect(diff.lines.some((line) => line.kind === 'del' || line.kind === 'context')).toBe(false);
  });
});
