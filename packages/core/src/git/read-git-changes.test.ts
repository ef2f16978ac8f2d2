import { mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { isSameOrInside, readGitChanges } from './read-git-changes.js';
import { commitAll, git, initRepository, put, TempDirs } from './test-support/test-repository.js';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const tricky = ['with space.txt', 'tab\there.txt', 'quote"d.txt', 'new\nline.txt', 'naïve.txt'];

describe('readGitChanges', () => {
  it('returns [] for a directory outside any repository and for a missing path', async () => {
    const dir = await temp.make();
    await put(dir, 'plain.txt', 'x');
    expect(await readGitChanges({ path: dir })).toEqual([]);
    expect(await readGitChanges({ path: path.join(dir, 'missing') })).toEqual([]);
  });

  it('rejects a relative path and a file path as INVALID_ARGUMENT', async () => {
    const dir = await temp.make();
    await put(dir, 'file.txt', 'x');
    for (const target of ['relative/dir', path.join(dir, 'file.txt')]) {
      const error = await rejectionOf(readGitChanges({ path: target }));
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it('reports everything as ADDED on an unborn branch, staged or not', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'staged.txt', 's');
    await put(repo, 'dir/untracked.txt', 'u');
    await git(repo, 'add', 'staged.txt');
    expect(await readGitChanges({ path: repo })).toEqual([
      { status: 'ADDED', path: 'dir/untracked.txt' },
      { status: 'ADDED', path: 'staged.txt' },
    ]);
  });

  it('reports updates, deletions, moves and untracked files, sorted, ignoring ignored files', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, '.gitignore', '*.log\n');
    await put(repo, 'keep.txt', 'keep\n');
    await put(repo, 'modify.txt', 'before\n');
    await put(repo, 'delete.txt', 'delete\n');
    await put(repo, 'old/name.txt', 'a file long enough to be recognised as a rename\n');
    await commitAll(repo, 'base');
    await put(repo, 'modify.txt', 'after\n');
    await rm(path.join(repo, 'delete.txt'));
    await git(repo, 'mv', 'old/name.txt', 'new-name.txt');
    await put(repo, 'added.txt', 'new\n');
    await put(repo, 'debug.log', 'ignored\n');
    expect(await readGitChanges({ path: repo })).toEqual([
      { status: 'ADDED', path: 'added.txt' },
      { status: 'DELETED', path: 'delete.txt' },
      { status: 'UPDATED', path: 'modify.txt' },
      { status: 'MOVED', path: 'new-name.txt' },
    ]);
  });

  it('handles spaces, tabs, quotes, newlines and non-ASCII in paths', async () => {
    const repo = await initRepository(await temp.make());
    for (const name of tricky) await put(repo, `committed/${name}`, 'v1\n');
    await commitAll(repo, 'base');
    for (const name of tricky) {
      await put(repo, `committed/${name}`, 'v2\n');
      await put(repo, `untracked/${name}`, 'new\n');
    }
    await put(repo, '-dash.txt', 'dash\n');
    await put(repo, '*glob?.txt', 'glob\n');
    const expected = [
      { status: 'ADDED', path: '*glob?.txt' },
      { status: 'ADDED', path: '-dash.txt' },
      ...tricky.map((name) => ({ status: 'UPDATED', path: `committed/${name}` })),
      ...tricky.map((name) => ({ status: 'ADDED', path: `untracked/${name}` })),
    ].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    expect(await readGitChanges({ path: repo })).toEqual(expected);
  });

  it('reports type changes and unmerged paths as UPDATED', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'conflict.txt', 'base\n');
    await put(repo, 'becomes-link', 'file\n');
    await commitAll(repo, 'base');
    await git(repo, 'checkout', '--quiet', '-b', 'other');
    await put(repo, 'conflict.txt', 'other\n');
    await commitAll(repo, 'other');
    await git(repo, 'checkout', '--quiet', 'main');
    await put(repo, 'conflict.txt', 'main\n');
    await commitAll(repo, 'main');
    await git(repo, 'merge', 'other').catch(() => undefined);
    await rm(path.join(repo, 'becomes-link'));
    await symlink('conflict.txt', path.join(repo, 'becomes-link'));
    expect(await readGitChanges({ path: repo })).toEqual([
      { status: 'UPDATED', path: 'becomes-link' },
      { status: 'UPDATED', path: 'conflict.txt' },
    ]);
  });

  it('reports only changes below a subdirectory, relative to it', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'top.txt', 'top\n');
    await put(repo, 'sub/inner.txt', 'inner\n');
    await put(repo, '.gitignore', 'sub/*.tmp\n');
    await commitAll(repo, 'base');
    await put(repo, 'top.txt', 'changed\n');
    await put(repo, 'sub/inner.txt', 'changed\n');
    await put(repo, 'sub/deeper/new.txt', 'new\n');
    await put(repo, 'sub/skip.tmp', 'ignored by the parent .gitignore\n');
    await put(repo, 'subway.txt', 'sibling with a shared prefix\n');
    expect(await readGitChanges({ path: path.join(repo, 'sub') })).toEqual([
      { status: 'ADDED', path: 'deeper/new.txt' },
      { status: 'UPDATED', path: 'inner.txt' },
    ]);
  });

  it('scans nested repositories at any depth without hiding siblings that share a prefix', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, '.gitignore', 'ignored/\n');
    await put(repo, 'root.txt', 'root\n');
    await commitAll(repo, 'base');

    const foo = await initRepository(path.join(repo, 'foo'));
    await put(foo, 'tracked.txt', 'v1\n');
    await commitAll(foo, 'foo');
    await put(foo, 'tracked.txt', 'v2\n');
    await put(foo, 'fresh.txt', 'fresh\n');

    const deep = await initRepository(path.join(repo, 'libs/group/deep'));
    await put(deep, 'x.txt', 'x\n');
    const inner = await initRepository(path.join(deep, 'vendor/inner'));
    await put(inner, 'y.txt', 'y\n');

    const ignored = await initRepository(path.join(repo, 'ignored/repo'));
    await put(ignored, 'z.txt', 'z\n');

    await put(repo, 'foobar/x.txt', 'x\n');
    await put(repo, 'foo-config.yaml', 'x\n');
    await put(repo, 'libs/group/sibling.txt', 'x\n');

    expect(await readGitChanges({ path: repo })).toEqual([
      { status: 'ADDED', path: 'foo-config.yaml' },
      { status: 'ADDED', path: 'foo/fresh.txt' },
      { status: 'UPDATED', path: 'foo/tracked.txt' },
      { status: 'ADDED', path: 'foobar/x.txt' },
      { status: 'ADDED', path: 'libs/group/deep/vendor/inner/y.txt' },
      { status: 'ADDED', path: 'libs/group/deep/x.txt' },
      { status: 'ADDED', path: 'libs/group/sibling.txt' },
    ]);
  });

  it('drops parent entries that lie inside a nested repository', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'nested/owned-by-parent.txt', 'v1\n');
    await put(repo, 'nestedX/file.txt', 'v1\n');
    await commitAll(repo, 'base');
    await put(repo, 'nested/owned-by-parent.txt', 'v2\n');
    await put(repo, 'nestedX/file.txt', 'v2\n');
    const nested = await initRepository(path.join(repo, 'nested'));
    await put(nested, 'own.txt', 'own\n');
    expect(await readGitChanges({ path: repo })).toEqual([
      { status: 'ADDED', path: 'nested/own.txt' },
      { status: 'ADDED', path: 'nested/owned-by-parent.txt' },
      { status: 'UPDATED', path: 'nestedX/file.txt' },
    ]);
  });

  it('reports a gitlink (submodule) as one entry of the parent', async () => {
    const repo = await initRepository(await temp.make());
    const inner = await initRepository(path.join(repo, 'inner'));
    await put(inner, 'a.txt', 'a\n');
    await commitAll(inner, 'a');
    await commitAll(repo, 'add gitlink');
    expect(await git(repo, 'ls-files', '--stage', 'inner')).toMatch(/^160000 /);
    await put(inner, 'a.txt', 'b\n');
    await commitAll(inner, 'b');
    expect(await readGitChanges({ path: repo })).toEqual([{ status: 'UPDATED', path: 'inner' }]);
  });

  it('finds repositories at any depth below a directory that is not a repository', async () => {
    const root = await temp.make();
    const one = await initRepository(path.join(root, 'one'));
    await put(one, 'a.txt', 'a\n');
    const two = await initRepository(path.join(root, 'deep/er/two'));
    await put(two, 'b.txt', 'b\n');
    await put(root, 'loose.txt', 'not in any repository\n');
    await mkdir(path.join(root, 'loop'));
    await symlink(root, path.join(root, 'loop/back'));
    expect(await readGitChanges({ path: root })).toEqual([
      { status: 'ADDED', path: 'deep/er/two/b.txt' },
      { status: 'ADDED', path: 'one/a.txt' },
    ]);
  });

  it('compares against an explicit ref, skipping nested repositories that lack it', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'a.txt', 'a\n');
    await commitAll(repo, 'a');
    await put(repo, 'b.txt', 'b\n');
    await commitAll(repo, 'b');
    await git(repo, 'tag', 'only-here', 'HEAD~1');
    const nested = await initRepository(path.join(repo, 'nested'));
    await put(nested, 'n.txt', 'n\n');
    expect(await readGitChanges({ path: repo })).toEqual([
      { status: 'ADDED', path: 'nested/n.txt' },
    ]);
    expect(await readGitChanges({ path: repo, ref: 'only-here' })).toEqual([
      { status: 'ADDED', path: 'b.txt' },
    ]);
    const error = await rejectionOf(readGitChanges({ path: repo, ref: 'missing' }));
    expect(WorkspaceError.isInstance(error, 'GIT_ERROR')).toBe(true);
    const invalid = await rejectionOf(readGitChanges({ path: repo, ref: '-p' }));
    expect(WorkspaceError.isInstance(invalid, 'INVALID_ARGUMENT')).toBe(true);
  });

  it('ignores GIT_DIR and GIT_WORK_TREE of the calling process', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'mine.txt', 'mine\n');
    const other = await initRepository(await temp.make());
    await put(other, 'theirs.txt', 'theirs\n');
    const saved = { dir: process.env.GIT_DIR, tree: process.env.GIT_WORK_TREE };
    process.env.GIT_DIR = path.join(other, '.git');
    process.env.GIT_WORK_TREE = other;
    try {
      expect(await readGitChanges({ path: repo })).toEqual([{ status: 'ADDED', path: 'mine.txt' }]);
    } finally {
      for (const [name, value] of [
        ['GIT_DIR', saved.dir],
        ['GIT_WORK_TREE', saved.tree],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('reports a git failure other than "not a repository" as GIT_ERROR', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, '.git/config', '[core]\n\trepositoryformatversion = 99\n');
    const error = await rejectionOf(readGitChanges({ path: repo }));
    expect(WorkspaceError.isInstance(error, 'GIT_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(/repo version/i);
  });

  it('rejects with ABORTED when the signal has fired', async () => {
    const repo = await initRepository(await temp.make());
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const error = await rejectionOf(readGitChanges({ path: repo, signal: controller.signal }));
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
  });
});

describe('isSameOrInside', () => {
  it('matches whole path segments only', () => {
    expect(isSameOrInside('foo', 'foo')).toBe(true);
    expect(isSameOrInside('foo/x', 'foo')).toBe(true);
    expect(isSameOrInside('foobar/x', 'foo')).toBe(false);
    expect(isSameOrInside('foo-config.yaml', 'foo')).toBe(false);
    expect(isSameOrInside('a/foo/x', 'foo')).toBe(false);
  });
});
