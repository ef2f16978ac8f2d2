import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGitCommitChanges } from './read-git-commit-changes.js';
import { readGitCommitDiff } from './read-git-commit-diff.js';
import { readGitCommits } from './read-git-commits.js';
import { commitAll, git, initRepository, put, TempDirs } from './test-support/test-repository.js';

describe('readGitCommits, readGitCommitChanges, readGitCommitDiff', () => {
  const temp = new TempDirs();
  let repo: string;
  let first: string;
  let second: string;

  beforeAll(async () => {
    repo = await initRepository(path.join(await temp.make(), 'repo'));
    await put(repo, 'sub/a.txt', 'one\n');
    await put(repo, 'b.txt', 'two\n');
    first = await commitAll(repo, 'first');
    await put(repo, 'sub/a.txt', 'one\nmore\n');
    await rm(path.join(repo, 'b.txt'));
    second = await commitAll(repo, 'second\n\nbody that is not the subject');
  });
  afterAll(() => temp.cleanup());

  it('lists commits newest first with subject, author and ISO date', async () => {
    const page = await readGitCommits({ path: repo });
    expect(page.hasMore).toBe(false);
    expect(page.commits.map((commit) => [commit.sha, commit.subject, commit.author])).toEqual([
      [second, 'second', 'Test'],
      [first, 'first', 'Test'],
    ]);
    expect(page.commits[0]?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    expect(await readGitCommits({ path: repo, limit: 1 })).toMatchObject({ hasMore: true });
  });

  it('refuses a limit outside 1..200 naming limit', async () => {
    for (const limit of [0, 201, 1.5, Number.NaN]) {
      await expect(readGitCommits({ path: repo, limit })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'limit' },
      });
    }
  });

  it('lists changes relative to the directory asked, below it only', async () => {
    expect(await readGitCommitChanges({ path: repo, sha: second })).toEqual([
      { status: 'DELETED', path: 'b.txt' },
      { status: 'UPDATED', path: 'sub/a.txt' },
    ]);
    expect(await readGitCommitChanges({ path: path.join(repo, 'sub'), sha: second })).toEqual([
      { status: 'UPDATED', path: 'a.txt' },
    ]);
    let truncated = false;
    const cut = await readGitCommitChanges({
      path: repo,
      sha: first,
      maxChanges: 1,
      onTruncated: () => {
        truncated = true;
      },
    });
    expect(cut).toEqual([{ status: 'ADDED', path: 'b.txt' }]);
    expect(truncated).toBe(true);
  });

  it('refuses a sha that is not hex, naming the field, and fails on an unknown one', async () => {
    for (const sha of ['-o', 'HEAD', 'abc', `${first}0`.padEnd(65, '0')]) {
      await expect(readGitCommitChanges({ path: repo, sha })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'sha' },
      });
      await expect(
        readGitCommitDiff({ path: path.join(repo, 'b.txt'), commit: sha }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'commit' } });
    }
    await expect(readGitCommitChanges({ path: repo, sha: 'deadbeef' })).rejects.toMatchObject({
      code: 'GIT_ERROR',
    });
  });

  it('reads both sides of a file from git objects', async () => {
    expect(await readGitCommitDiff({ path: path.join(repo, 'b.txt'), commit: second })).toEqual({
      original: 'two\n',
      modified: '',
    });
    expect(
      await readGitCommitDiff({ path: path.join(repo, 'sub/a.txt'), commit: second.slice(0, 8) }),
    ).toEqual({ original: 'one\n', modified: 'one\nmore\n' });
  });

  it('answers nothing outside a repository and on an unborn branch', async () => {
    const plain = await temp.make();
    expect(await readGitCommits({ path: plain })).toEqual({ commits: [], hasMore: false });
    expect(await readGitCommitChanges({ path: plain, sha: first })).toEqual([]);
    expect(await readGitCommitDiff({ path: path.join(plain, 'x'), commit: first })).toEqual({
      modified: null,
      original: null,
    });
    const unborn = await initRepository(path.join(plain, 'unborn'));
    await git(unborn, 'status');
    expect(await readGitCommits({ path: unborn })).toEqual({ commits: [], hasMore: false });
  });
});
