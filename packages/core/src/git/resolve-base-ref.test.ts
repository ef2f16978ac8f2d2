import { readFile, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { resolveBaseRef } from './resolve-base-ref.js';
import { commitAll, git, initRepository, put, TempDirs } from './test-support/test-repository.js';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const temp = new TempDirs();
afterAll(() => temp.cleanup());

/** A bare `origin` with `main` (one commit) and a clone of it; returns the clone. */
async function cloneWithOrigin(): Promise<{ clone: string; forkPoint: string }> {
  const root = await temp.make();
  const seed = await initRepository(path.join(root, 'seed'));
  await put(seed, 'base.txt', 'base\n');
  const forkPoint = await commitAll(seed, 'base');
  await git(root, 'clone', '--quiet', '--bare', 'seed', 'origin.git');
  await git(root, 'clone', '--quiet', 'origin.git', 'clone');
  return { clone: path.join(root, 'clone'), forkPoint };
}

describe('resolveBaseRef: display policy', () => {
  it('uses the empty tree on an unborn branch', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'a.txt', 'a');
    expect(await resolveBaseRef({ cwd: repo })).toBe(EMPTY_TREE);
  });

  it('uses origin/<branch> when the branch has unpushed commits', async () => {
    const { clone, forkPoint } = await cloneWithOrigin();
    await put(clone, 'local.txt', 'local');
    const local = await commitAll(clone, 'local');
    expect(local).not.toBe(forkPoint);
    expect(await resolveBaseRef({ cwd: clone })).toBe(forkPoint);
  });

  it('skips a fully pushed clean branch and uses the fork point with origin/<default>', async () => {
    const { clone, forkPoint } = await cloneWithOrigin();
    await git(clone, 'checkout', '--quiet', '-b', 'feature');
    await put(clone, 'feature.txt', 'feature');
    const feature = await commitAll(clone, 'feature');
    await git(clone, 'push', '--quiet', 'origin', 'feature');
    expect(await git(clone, 'rev-parse', 'origin/feature')).toBe(feature);
    // An untracked file does not make the tree dirty.
    await put(clone, 'scratch.txt', 'scratch');
    expect(await resolveBaseRef({ cwd: clone })).toBe(forkPoint);
  });

  it('keeps origin/<branch> when it equals HEAD but tracked files changed', async () => {
    const { clone } = await cloneWithOrigin();
    await git(clone, 'checkout', '--quiet', '-b', 'feature');
    await put(clone, 'feature.txt', 'feature');
    const feature = await commitAll(clone, 'feature');
    await git(clone, 'push', '--quiet', 'origin', 'feature');
    await put(clone, 'feature.txt', 'edited');
    expect(await resolveBaseRef({ cwd: clone })).toBe(feature);
  });

  it('finds the default branch without origin/HEAD and without the network', async () => {
    const root = await temp.make();
    const repo = await initRepository(path.join(root, 'repo'));
    await put(repo, 'a.txt', 'a');
    const forkPoint = await commitAll(repo, 'a');
    await git(root, 'init', '--quiet', '--bare', 'origin.git');
    await git(repo, 'remote', 'add', 'origin', path.join(root, 'origin.git'));
    await git(repo, 'push', '--quiet', 'origin', 'main');
    await git(repo, 'checkout', '--quiet', '-b', 'feature');
    await put(repo, 'b.txt', 'b');
    await commitAll(repo, 'b');
    // Move the remote so `git remote show origin` would fail: only local refs may be used.
    await git(repo, 'remote', 'set-url', 'origin', path.join(root, 'missing.git'));
    expect(await resolveBaseRef({ cwd: repo })).toBe(forkPoint);
  });

  it('passes over an origin/HEAD naming a missing branch, and peels a tag under origin', async () => {
    const { clone, forkPoint } = await cloneWithOrigin();
    await git(clone, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/gone');
    await git(clone, 'checkout', '--quiet', '-b', 'feature');
    await put(clone, 'feature.txt', 'feature');
    await commitAll(clone, 'feature');
    expect(await resolveBaseRef({ cwd: clone })).toBe(forkPoint);

    // origin/feature holding an annotated tag of a commit counts as that commit.
    const pushed = await git(clone, 'rev-parse', 'HEAD');
    await put(clone, 'feature.txt', 'more');
    await commitAll(clone, 'more');
    await git(clone, 'tag', '--annotate', '--message', 'tag', 'pushed', pushed);
    const tag = await git(clone, 'rev-parse', 'refs/tags/pushed');
    await git(clone, 'update-ref', 'refs/remotes/origin/feature', tag);
    expect(await resolveBaseRef({ cwd: clone })).toBe(pushed);
  });

  it('uses the merge base with local main when there is no remote', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'a.txt', 'a');
    const main = await commitAll(repo, 'a');
    await git(repo, 'checkout', '--quiet', '-b', 'openhands/work');
    await put(repo, 'b.txt', 'b');
    await commitAll(repo, 'b');
    expect(await resolveBaseRef({ cwd: repo })).toBe(main);
  });

  it('uses local master when there is no main', async () => {
    const repo = await initRepository(await temp.make());
    await git(repo, 'checkout', '--quiet', '-b', 'master');
    await put(repo, 'a.txt', 'a');
    const master = await commitAll(repo, 'a');
    await git(repo, 'checkout', '--quiet', '-b', 'topic');
    await commitAll(repo, 'topic');
    expect(await resolveBaseRef({ cwd: repo })).toBe(master);
  });

  it('falls back to HEAD when local main moved on after the fork', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'a.txt', 'a');
    await commitAll(repo, 'a');
    await git(repo, 'checkout', '--quiet', '-b', 'topic');
    const topic = await commitAll(repo, 'topic');
    await git(repo, 'checkout', '--quiet', 'main');
    await commitAll(repo, 'main moved');
    await git(repo, 'checkout', '--quiet', 'topic');
    expect(await resolveBaseRef({ cwd: repo })).toBe(topic);
  });

  it('uses HEAD on main itself and on a detached HEAD', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'a.txt', 'a');
    const first = await commitAll(repo, 'a');
    const second = await commitAll(repo, 'b');
    expect(await resolveBaseRef({ cwd: repo })).toBe(second);
    await git(repo, 'checkout', '--quiet', '--detach', first);
    expect(await resolveBaseRef({ cwd: repo })).toBe(first);
  });

  it('works from a subdirectory of the work tree', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'sub/a.txt', 'a');
    const head = await commitAll(repo, 'a');
    expect(await resolveBaseRef({ cwd: path.join(repo, 'sub') })).toBe(head);
  });

  it('never writes the index while checking whether the tree is clean', async () => {
    const { clone } = await cloneWithOrigin();
    await git(clone, 'checkout', '--quiet', '-b', 'feature');
    await put(clone, 'feature.txt', 'feature');
    await commitAll(clone, 'feature');
    await git(clone, 'push', '--quiet', 'origin', 'feature');
    // A touched file makes the index stale, which a plain `git status` would refresh.
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(clone, 'feature.txt'), later, later);
    const index = path.join(clone, '.git', 'index');
    const before = { bytes: await readFile(index), mtimeMs: (await stat(index)).mtimeMs };
    await resolveBaseRef({ cwd: clone });
    expect((await stat(index)).mtimeMs).toBe(before.mtimeMs);
    expect((await readFile(index)).equals(before.bytes)).toBe(true);
  });
});

describe('resolveBaseRef: explicit base', () => {
  it('resolves ref and commit to a full commit id', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'a.txt', 'a');
    const first = await commitAll(repo, 'a');
    await commitAll(repo, 'b');
    await git(repo, 'tag', 'v1', first);
    expect(await resolveBaseRef({ cwd: repo, ref: 'HEAD~1' })).toBe(first);
    expect(await resolveBaseRef({ cwd: repo, ref: 'v1' })).toBe(first);
    expect(await resolveBaseRef({ cwd: repo, commit: first.slice(0, 8).toUpperCase() })).toBe(
      first,
    );
  });

  it('uses the empty tree for HEAD on an unborn branch', async () => {
    const repo = await initRepository(await temp.make());
    expect(await resolveBaseRef({ cwd: repo, ref: 'HEAD' })).toBe(EMPTY_TREE);
  });

  it('reports an unknown ref as GIT_ERROR carrying git stderr', async () => {
    const repo = await initRepository(await temp.make());
    await commitAll(repo, 'a');
    const error = await rejectionOf(resolveBaseRef({ cwd: repo, ref: 'no-such-branch' }));
    expect(WorkspaceError.isInstance(error, 'GIT_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(/fatal: needed a single revision/i);
  });

  it.each([
    [{ ref: '--output=/tmp/x' }, 'ref'],
    [{ ref: '' }, 'ref'],
    [{ commit: 'xyz1' }, 'commit'],
    [{ commit: 'abc' }, 'commit'],
    [{ commit: 'a'.repeat(65) }, 'commit'],
    [{ ref: 'HEAD', commit: 'abcd' }, 'ref'],
  ])('rejects %o as INVALID_ARGUMENT naming %s', async (input, field) => {
    const error = await rejectionOf(resolveBaseRef({ cwd: '/nonexistent', ...input }));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details.field).toBe(field);
  });
});
