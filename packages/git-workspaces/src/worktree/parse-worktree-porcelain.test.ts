import { describe, expect, it } from 'vitest';
import { parseWorktreePorcelain, shortBranchName } from './parse-worktree-porcelain.js';

const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
/** Builds porcelain -z output from records of attribute lines. */
const z = (...records: string[][]) => records.map((lines) => `${lines.join('\0')}\0\0`).join('');

describe('parseWorktreePorcelain', () => {
  it('parses the main tree and a branch worktree', () => {
    const output = z(
      ['worktree /repo', `HEAD ${SHA}`, 'branch refs/heads/main'],
      ['worktree /trees/p/s1', `HEAD ${SHA2}`, 'branch refs/heads/feature/x'],
    );
    expect(parseWorktreePorcelain(output)).toEqual([
      { path: '/repo', head: SHA, branch: 'refs/heads/main', detached: false, bare: false },
      {
        path: '/trees/p/s1',
        head: SHA2,
        branch: 'refs/heads/feature/x',
        detached: false,
        bare: false,
      },
    ]);
  });

  it('parses a bare repository and a detached HEAD', () => {
    const output = z(['worktree /repo.git', 'bare'], ['worktree /t/d', `HEAD ${SHA}`, 'detached']);
    expect(parseWorktreePorcelain(output)).toEqual([
      { path: '/repo.git', detached: false, bare: true },
      { path: '/t/d', head: SHA, detached: true, bare: false },
    ]);
  });

  it('keeps lock and prune reasons, including empty ones and ones with newlines', () => {
    const output = z(
      ['worktree /t/a', `HEAD ${SHA}`, 'branch refs/heads/a', 'locked'],
      ['worktree /t/b', `HEAD ${SHA}`, 'branch refs/heads/b', 'locked on a\nportable disk'],
      [
        'worktree /t/c',
        `HEAD ${SHA}`,
        'detached',
        'prunable gitdir file points to non-existent location',
      ],
    );
    const [a, b, c] = parseWorktreePorcelain(output);
    expect(a?.locked).toBe('');
    expect(a?.prunable).toBeUndefined();
    expect(b?.locked).toBe('on a\nportable disk');
    expect(c?.prunable).toBe('gitdir file points to non-existent location');
    expect(c?.locked).toBeUndefined();
  });

  it('takes paths with spaces and newlines verbatim', () => {
    const output = z(
      ['worktree /t/with space', `HEAD ${SHA}`, 'branch refs/heads/s'],
      ['worktree /t/new\nline', `HEAD ${SHA}`, 'branch refs/heads/n'],
    );
    expect(parseWorktreePorcelain(output).map((record) => record.path)).toEqual([
      '/t/with space',
      '/t/new\nline',
    ]);
  });

  it('skips unknown labels and attributes before any worktree line; empty output is empty', () => {
    expect(parseWorktreePorcelain('')).toEqual([]);
    const output = `stray\0\0${z(['worktree /t/x', `HEAD ${SHA}`, 'future-flag with value', 'branch refs/heads/x'])}`;
    expect(parseWorktreePorcelain(output)).toEqual([
      { path: '/t/x', head: SHA, branch: 'refs/heads/x', detached: false, bare: false },
    ]);
  });

  it('tolerates output without the final record separator', () => {
    const output = `worktree /t/x\0HEAD ${SHA}\0branch refs/heads/x\0`;
    expect(parseWorktreePorcelain(output)).toHaveLength(1);
  });

  it('shortens branch refs', () => {
    expect(shortBranchName('refs/heads/feature/x')).toBe('feature/x');
    expect(shortBranchName('refs/remotes/origin/x')).toBe('refs/remotes/origin/x');
  });
});
