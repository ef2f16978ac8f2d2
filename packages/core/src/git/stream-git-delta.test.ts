import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { excludePathspecs, streamGitDelta } from './stream-git-delta.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t.dev', '-c', 'user.name=t', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** Scratch directories of git deltas in the temporary directory. */
function scratchCount(): number {
  return readdirSync(os.tmpdir()).filter((name) => name.startsWith('agent-workspace-delta-'))
    .length;
}

describe('streamGitDelta', () => {
  let repo: string;
  beforeEach(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), 'stream-git-delta-'));
    git(repo, 'init', '-q');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
  });
  afterEach(() => rm(repo, { recursive: true, force: true }));

  it('streams tracked and untracked changes and leaves the index and temp files alone', async () => {
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    await writeFile(path.join(repo, 'new.txt'), 'new\n');
    const before = git(repo, 'status', '--porcelain');
    const objectsBefore = git(repo, 'count-objects', '-v');
    const scratchBefore = scratchCount();
    const delta = await streamGitDelta({ cwd: repo, baseRef: 'HEAD' });
    const patch = await text(delta.patch);
    expect(delta.baseCommit).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    expect(patch).toContain('+two');
    expect(patch).toContain('diff --git a/new.txt b/new.txt');
    expect(git(repo, 'status', '--porcelain')).toBe(before);
    expect(git(repo, 'count-objects', '-v')).toBe(objectsBefore);
    await vi.waitFor(() => expect(scratchCount()).toBeLessThanOrEqual(scratchBefore));
  });

  it('refuses a dashed or unknown base_ref and a directory outside any repository', async () => {
    for (const baseRef of ['-o', '--output=x', 'no-such-ref']) {
      const error = await streamGitDelta({ cwd: repo, baseRef }).catch((e: unknown) => e);
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as WorkspaceError).details.field).toBe('base_ref');
    }
    const plain = await mkdtemp(path.join(os.tmpdir(), 'stream-git-delta-plain-'));
    try {
      const error = await streamGitDelta({ cwd: plain, confineTo: plain }).catch((e: unknown) => e);
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as WorkspaceError).message).toMatch(/Not a git repository/);
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('rejects with ABORTED when the signal has fired', async () => {
    const error = await streamGitDelta({ cwd: repo, signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
  });
});

describe('excludePathspecs', () => {
  it('translates excludes as OpenHands does and drops patterns that can match nothing', () => {
    expect(
      excludePathspecs(['node_modules/', '*.pyc', 'secrets/prod', '../x', '/abs', '/']),
    ).toEqual([
      ':(glob,exclude)**/node_modules/**',
      ':(glob,exclude)**/*.pyc',
      ':(glob,exclude)**/*.pyc/**',
      ':(glob,exclude)secrets/prod',
      ':(glob,exclude)secrets/prod/**',
    ]);
  });
});
