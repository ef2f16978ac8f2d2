import { existsSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeTestArea, type TestArea, testConfig } from '../test-support/test-project.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';
import { CloneProvisioner } from './clone-provisioner.js';

let area: TestArea;
let clones: CloneProvisioner;
beforeEach(async () => {
  area = await makeTestArea('clone');
  clones = new CloneProvisioner({ root: area.root });
});
afterEach(async () => {
  await area.cleanup();
});

const config = (sessionId: string, branch?: string) => testConfig(area, sessionId, branch);

describe('CloneProvisioner', () => {
  it('makes a full clone on a new branch from origin/<defaultBranch>, hard-linked, listed, destroyed', async () => {
    const info = await clones.create(config('c1'));
    expect(info.path).toBe(path.join(area.root, 'app', 'c1'));
    expect(await git(info.path, 'symbolic-ref', '--short', 'HEAD')).toBe('agent/c1');
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(
      await git(area.project, 'rev-parse', 'main'),
    );
    expect((await stat(path.join(info.path, '.git'))).isDirectory()).toBe(true);
    expect(existsSync(path.join(info.path, '.git', 'objects', 'info', 'alternates'))).toBe(false);
    expect(await clones.list('app')).toEqual([
      { path: info.path, branch: 'agent/c1', sessionId: 'c1', projectId: 'app' },
    ]);
    expect(await clones.exists(info.path)).toBe(true);
    await clones.destroy(info.path);
    expect(existsSync(info.path)).toBe(false);
    expect(await clones.list('app')).toEqual([]);
  });

  it('is isolated from a worktree of the same project, and survives the project being deleted', async () => {
    const clone = await clones.create(config('c1'));
    const worktree = await new WorktreeProvisioner({ root: area.root }).create(config('w1'));
    await writeFile(path.join(worktree.path, 'from-worktree.txt'), 'w\n');
    await git(worktree.path, 'add', '-A');
    await git(worktree.path, 'commit', '-q', '-m', 'worktree commit');
    await writeFile(path.join(clone.path, 'from-clone.txt'), 'c\n');
    await git(clone.path, 'add', '-A');
    await git(clone.path, 'commit', '-q', '-m', 'clone commit');
    expect(existsSync(path.join(clone.path, 'from-worktree.txt'))).toBe(false);
    expect(existsSync(path.join(worktree.path, 'from-clone.txt'))).toBe(false);
    const cloneCommit = await git(clone.path, 'rev-parse', 'HEAD');
    // The worktree shares the project's object store; the clone's commit is not in it.
    await expect(git(area.project, 'cat-file', '-e', cloneCommit)).rejects.toThrow();

    await rm(area.project, { recursive: true, force: true });
    await git(clone.path, 'fsck', '--full');
    expect(await git(clone.path, 'log', '--format=%s')).toBe('clone commit\ninitial');
    expect(await readFile(path.join(clone.path, 'README.md'), 'utf8')).toBe('# project\n');
  });

  it('refuses to destroy uncommitted files or unpushed commits unless forced', async () => {
    const info = await clones.create(config('c1'));
    await writeFile(path.join(info.path, 'notes.txt'), 'x');
    const dirty = await expectRejection(clones.destroy(info.path), 'FORBIDDEN');
    expect(dirty.message).toContain('"notes.txt"');
    await git(info.path, 'add', '-A');
    await git(info.path, 'commit', '-q', '-m', 'local only');
    const unpushed = await expectRejection(clones.destroy(info.path), 'FORBIDDEN');
    expect(unpushed.message).toContain('1 unpushed commit(s)');
    expect(existsSync(info.path)).toBe(true);
    await clones.destroy(info.path, { force: true });
    expect(existsSync(info.path)).toBe(false);
  });

  it('restores a clone of a branch that exists in the project; refuses one that does not', async () => {
    await git(area.project, 'branch', 'agent/c1', 'main');
    const target = path.join(area.root, 'app', 'c1');
    await expectRejection(
      clones.restore(config('c2'), path.join(area.root, 'app', 'c2')),
      'NOT_FOUND',
    );
    expect(existsSync(path.join(area.root, 'app', 'c2'))).toBe(false);
    const restored = await clones.restore(config('c1'), target);
    expect(restored.path).toBe(target);
    expect(await git(target, 'symbolic-ref', '--short', 'HEAD')).toBe('agent/c1');
    expect((await clones.list('app')).map((info) => info.sessionId)).toEqual(['c1']);
    await rm(target, { recursive: true, force: true });
    await clones.restore(config('c1'), target);
    expect(await git(target, 'rev-parse', 'HEAD')).toBe(
      await git(area.project, 'rev-parse', 'main'),
    );
  });
});

describe('CloneProvisioner branches and remotes', () => {
  it('refuses a branch that exists in the project with ALREADY_EXISTS, leaving nothing behind', async () => {
    await writeFile(path.join(area.project, 'work.txt'), 'work\n');
    await git(area.project, 'checkout', '-q', '-b', 'agent/taken');
    await git(area.project, 'add', '-A');
    await git(area.project, 'commit', '-q', '-m', 'existing work');
    await git(area.project, 'checkout', '-q', 'main');
    const error = await expectRejection(
      clones.create(config('c9', 'agent/taken')),
      'ALREADY_EXISTS',
    );
    expect(error.details.field).toBe('branch');
    expect(error.message).toContain('restore');
    expect(existsSync(path.join(area.root, 'app', 'c9'))).toBe(false);
    expect(await clones.list('app')).toEqual([]);
    // restore is the way to get it back, with its commits.
    const restored = await clones.restore(
      config('c9', 'agent/taken'),
      path.join(area.root, 'app', 'c9'),
    );
    expect(await readFile(path.join(restored.path, 'work.txt'), 'utf8')).toBe('work\n');
  });

  it("points origin where the project's origin points and names the project 'project'", async () => {
    const upstream = path.join(area.base, 'upstream.git');
    await git(area.base, 'init', '-q', '--bare', '-b', 'main', upstream);
    // A relative URL (relative to the project) still names the upstream from the clone.
    await git(area.project, 'remote', 'add', 'origin', '../upstream.git');
    await git(area.project, 'push', '-q', 'origin', 'main');
    const info = await clones.create(config('c10'));
    expect(info.warnings).toBeUndefined();
    expect(await git(info.path, 'remote', 'get-url', 'origin')).toBe(upstream);
    expect(await git(info.path, 'remote', 'get-url', 'project')).toBe(area.project);
    // origin/main is where the project saw it, and origin fetches like any clone's.
    const main = await git(area.project, 'rev-parse', 'refs/remotes/origin/main');
    expect(await git(info.path, 'rev-parse', 'refs/remotes/origin/main')).toBe(main);
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(main);
    await git(info.path, 'fetch', '-q', 'origin');
    expect(await git(info.path, 'config', '--get-all', 'remote.origin.fetch')).toBe(
      '+refs/heads/*:refs/remotes/origin/*',
    );
    await writeFile(path.join(info.path, 'pushed.txt'), 'x\n');
    await git(info.path, 'add', '-A');
    await git(info.path, 'commit', '-q', '-m', 'pushed');
    await git(info.path, 'push', '-q', 'origin', 'HEAD');
    const head = await git(info.path, 'rev-parse', 'HEAD');
    expect(await git(upstream, 'rev-parse', 'refs/heads/agent/c10')).toBe(head);
    await expect(
      git(area.project, 'rev-parse', '--verify', 'refs/heads/agent/c10'),
    ).rejects.toThrow();
    // Pushed to origin: nothing unsaved.
    await clones.destroy(info.path);
    expect(existsSync(info.path)).toBe(false);
  });

  it('keeps the project as origin when the project has no origin', async () => {
    const info = await clones.create(config('c11'));
    expect(await git(info.path, 'remote')).toBe('origin');
    expect(await git(info.path, 'remote', 'get-url', 'origin')).toBe(area.project);
  });
});
