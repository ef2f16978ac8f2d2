import { link, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { readGitChanges } from './read-git-changes.js';
import { readGitDiff } from './read-git-diff.js';
import { commitAll, git, initRepository, put, TempDirs } from './test-support/test-repository.js';

function expectForbidden(error: unknown, mention: string): void {
  expect(WorkspaceError.isInstance(error, 'FORBIDDEN'), String(error)).toBe(true);
  expect((error as Error).message).toContain(mention);
}

describe('git reads confined to a directory', () => {
  const dirs = new TempDirs();
  let root: string;
  let outside: string;
  beforeEach(async () => {
    root = await dirs.make();
    outside = await initRepository(path.join(await dirs.make(), 'repo'));
    await put(outside, 'secret.txt', 'SECRET\n');
    await commitAll(outside);
  });
  afterEach(() => dirs.cleanup());

  it('refuses a .git file that points at a repository outside', async () => {
    await put(root, 'evil/.git', `gitdir: ${path.join(outside, '.git')}\n`);
    await put(root, 'evil/secret.txt', 'changed\n');
    const changes = await rejectionOf(
      readGitChanges({ path: path.join(root, 'evil'), confineTo: root }),
    );
    expectForbidden(changes, 'git directory is outside the working directory');
    const diff = await rejectionOf(
      readGitDiff({ path: path.join(root, 'evil/secret.txt'), confineTo: root }),
    );
    expectForbidden(diff, 'outside the working directory');
    // Unconfined, git follows the file (which is why confinement checks it).
    const open = await readGitDiff({ path: path.join(root, 'evil/secret.txt') });
    expect(open.original).toBe('SECRET\n');
  });

  it('refuses such a repository nested below the directory asked about', async () => {
    const inner = await initRepository(path.join(root, 'project'));
    await put(inner, 'a.txt', 'a\n');
    await commitAll(inner);
    await put(root, 'project/vendor/.git', `gitdir: ${path.join(outside, '.git')}\n`);
    await put(root, 'project/vendor/x.txt', 'x\n');
    const error = await rejectionOf(readGitChanges({ path: inner, confineTo: root }));
    expectForbidden(error, 'outside the working directory');
  });

  it('refuses object alternates outside', async () => {
    const inner = await initRepository(path.join(root, 'alt'));
    await put(inner, 'a.txt', 'a\n');
    await commitAll(inner);
    await writeFile(
      path.join(inner, '.git/objects/info/alternates'),
      `${path.join(outside, '.git/objects')}\n`,
    );
    expectForbidden(
      await rejectionOf(readGitChanges({ path: inner, confineTo: root })),
      'object alternate is outside',
    );
  });

  it('does not find a repository above the directory', async () => {
    const parent = await initRepository(await dirs.make());
    const confined = path.join(parent, 'workspace');
    await mkdir(confined);
    await put(confined, 'new.txt', 'x\n');
    expect(await readGitChanges({ path: confined })).toEqual([
      { status: 'ADDED', path: 'new.txt' },
    ]);
    expect(await readGitChanges({ path: confined, confineTo: confined })).toEqual([]);
    expect(
      await readGitDiff({ path: path.join(confined, 'new.txt'), confineTo: confined }),
    ).toEqual({ modified: null, original: null });
  });

  it('reads repositories inside and refuses hard-linked files', async () => {
    const inner = await initRepository(path.join(root, 'fine'));
    await put(inner, 'a.txt', 'one\n');
    await commitAll(inner);
    await put(inner, 'a.txt', 'two\n');
    expect(await readGitChanges({ path: root, confineTo: root })).toEqual([
      { status: 'UPDATED', path: 'fine/a.txt' },
    ]);
    expect(await readGitDiff({ path: path.join(inner, 'a.txt'), confineTo: root })).toEqual({
      modified: 'two\n',
      original: 'one\n',
    });
    await link(path.join(outside, 'secret.txt'), path.join(inner, 'linked.txt'));
    await git(inner, 'status');
    expectForbidden(
      await rejectionOf(readGitDiff({ path: path.join(inner, 'linked.txt'), confineTo: root })),
      'hard link',
    );
  });
});
