import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeTestArea, type TestArea, testConfig } from '../test-support/test-project.js';
import { WorktreeProvisioner } from './worktree-provisioner.js';

let area: TestArea;
let worktrees: WorktreeProvisioner;
beforeEach(async () => {
  area = await makeTestArea('worktree');
  worktrees = new WorktreeProvisioner({ root: area.root });
});
afterEach(async () => {
  await area.cleanup();
});

const config = (sessionId: string, branch?: string) => testConfig(area, sessionId, branch);

describe('WorktreeProvisioner', () => {
  it('creates a worktree on a new branch from the default branch, lists it and destroys it', async () => {
    const info = await worktrees.create(config('s1'));
    expect(info).toEqual({
      path: path.join(area.root, 'app', 's1'),
      branch: 'agent/s1',
      sessionId: 's1',
      projectId: 'app',
    });
    expect(await readFile(path.join(info.path, 'README.md'), 'utf8')).toBe('# project\n');
    expect(await git(info.path, 'symbolic-ref', '--short', 'HEAD')).toBe('agent/s1');
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(
      await git(area.project, 'rev-parse', 'main'),
    );
    expect(await worktrees.exists(info.path)).toBe(true);
    expect(await worktrees.list('app')).toEqual([info]);
    const record = JSON.parse(
      await readFile(path.join(area.root, 'app', '.owners', 's1.json'), 'utf8'),
    );
    expect(record).toMatchObject({ kind: 'worktree', pid: process.pid, branch: 'agent/s1' });

    await worktrees.destroy(info.path);
    expect(existsSync(info.path)).toBe(false);
    expect(existsSync(path.join(area.root, 'app', '.owners', 's1.json'))).toBe(false);
    expect(await worktrees.exists(info.path)).toBe(false);
    expect(await worktrees.list('app')).toEqual([]);
    expect(await git(area.project, 'worktree', 'list')).not.toContain(info.path);
    // The branch stays: its commits are not lost.
    expect(await git(area.project, 'branch', '--list', 'agent/s1')).toContain('agent/s1');
  });

  it('lists only trees under the managed root for that project', async () => {
    await worktrees.create(config('s1'));
    await worktrees.create({ ...config('s2'), projectId: 'other' });
    // A worktree of the same repository made by hand, outside the root.
    await git(
      area.project,
      'worktree',
      'add',
      '-q',
      '-b',
      'manual',
      path.join(area.base, 'manual tree'),
      'main',
    );
    expect((await worktrees.list('app')).map((info) => info.sessionId)).toEqual(['s1']);
    expect((await worktrees.list('other')).map((info) => info.sessionId)).toEqual(['s2']);
    expect(await worktrees.list('nothing')).toEqual([]);
    await expectRejection(worktrees.list('../app'), 'INVALID_ARGUMENT');
  });

  it('reports a detached HEAD and a lock reason in list', async () => {
    const info = await worktrees.create(config('s1'));
    await git(info.path, 'checkout', '-q', '--detach');
    await git(area.project, 'worktree', 'lock', '--reason', 'busy\nfor now', info.path);
    const [listed] = await worktrees.list('app');
    expect(listed).toMatchObject({ detached: true, locked: 'busy\nfor now' });
    expect(listed?.branch).toBe(await git(area.project, 'rev-parse', 'main'));
    // destroy removes a locked, clean worktree too.
    await worktrees.destroy(info.path);
    expect(existsSync(info.path)).toBe(false);
  });

  it('refuses to destroy a tree with modified, staged or untracked files unless forced', async () => {
    const info = await worktrees.create(config('s1'));
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['README.md', () => writeFile(path.join(info.path, 'README.md'), 'changed\n')],
      [
        'staged.txt',
        async () => {
          await writeFile(path.join(info.path, 'staged.txt'), 'x');
          await git(info.path, 'add', 'staged.txt');
        },
      ],
      ['new file.txt', () => writeFile(path.join(info.path, 'new file.txt'), 'x')],
    ];
    for (const [file, makeChange] of cases) {
      await makeChange();
      const error = await expectRejection(worktrees.destroy(info.path), 'FORBIDDEN');
      expect(error.message).toContain('refusing to destroy');
      expect(error.message).toContain(JSON.stringify(file));
      expect(error.details).toMatchObject({ reason: 'uncommitted-work', field: 'path' });
      expect(existsSync(info.path)).toBe(true);
      await git(info.path, 'reset', '-q', '--hard');
      await git(info.path, 'clean', '-qfd');
    }
    // Ignored files are not work: only the untracked one is listed.
    await mkdir(path.join(info.path, 'node_modules'));
    await writeFile(path.join(info.path, 'node_modules', 'pkg.js'), 'x');
    await writeFile(path.join(info.path, 'dirty.txt'), 'x');
    const refused = await expectRejection(worktrees.destroy(info.path), 'FORBIDDEN');
    expect(refused.details.paths).toEqual(['dirty.txt']);
    await worktrees.destroy(info.path, { force: true });
    expect(existsSync(info.path)).toBe(false);
    expect(await git(area.project, 'worktree', 'list', '--porcelain')).not.toContain(info.path);
  });

  it('counts untracked files even where the repository hides them from git status', async () => {
    await git(area.project, 'config', 'status.showUntrackedFiles', 'no');
    const info = await worktrees.create(config('s1'));
    await mkdir(path.join(info.path, 'fresh'));
    await writeFile(path.join(info.path, 'fresh', 'idea.txt'), 'x');
    const refused = await expectRejection(worktrees.destroy(info.path), 'FORBIDDEN');
    expect(refused.details.paths).toEqual(['fresh/idea.txt']);
    expect(existsSync(path.join(info.path, 'fresh', 'idea.txt'))).toBe(true);
    await rm(path.join(info.path, 'fresh'), { recursive: true });
    expect(await worktrees.destroy(info.path)).toMatchObject({ removed: true });
    expect(existsSync(info.path)).toBe(false);
  });

  it('refuses paths outside the managed root', async () => {
    await expectRejection(worktrees.destroy(area.project), 'FORBIDDEN');
    await expectRejection(worktrees.destroy(path.join(area.root, 'app')), 'FORBIDDEN');
    expect(existsSync(area.project)).toBe(true);
    expect(await worktrees.exists(area.project)).toBe(false);
  });

  it('validates the config, naming the field', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ sessionId: '../x' }, 'sessionId'],
      [{ sessionId: '.hidden' }, 'sessionId'],
      [{ projectId: 'a/b' }, 'projectId'],
      [{ branch: 'bad..name' }, 'branch'],
      [{ branch: 'has space' }, 'branch'],
      [{ branch: '-x' }, 'branch'],
      [{ project: { path: 'relative', defaultBranch: 'main' } }, 'project.path'],
      [{ project: { path: area.base, defaultBranch: 'main' } }, 'project.path'],
      [{ project: { path: path.join(area.base, 'none'), defaultBranch: 'main' } }, 'project.path'],
      [{ project: { path: area.project, defaultBranch: 'a:b' } }, 'project.defaultBranch'],
      [
        { project: { path: area.project, defaultBranch: 'main', symlinks: ['../up'] } },
        'project.symlinks.0',
      ],
      [{ extra: 1 }, 'extra'],
    ];
    for (const [override, field] of bad) {
      const error = await expectRejection(
        worktrees.create({ ...config('ok'), ...override } as never),
        'INVALID_CONFIG',
      );
      expect(error.details.fields, JSON.stringify(override)).toContain(field);
      expect(error.message).toContain(field);
    }
    expect(existsSync(path.join(area.root, 'app', 'ok'))).toBe(false);
  });

  it('names every bad branch at once, and refuses a bare repository as the project', async () => {
    const both = await expectRejection(
      worktrees.create({
        ...config('ok', 'x..y'),
        project: { path: area.project, defaultBranch: 'HEAD' },
      }),
      'INVALID_CONFIG',
    );
    expect(both.details.fields).toEqual(['project.defaultBranch', 'branch']);
    const bare = path.join(area.base, 'bare.git');
    await git(area.base, 'init', '-q', '--bare', bare);
    const refused = await expectRejection(
      worktrees.create({ ...config('ok'), project: { path: bare, defaultBranch: 'main' } }),
      'INVALID_CONFIG',
    );
    expect(refused.message).toContain('bare');
  });

  it('rejects a taken session or branch with ALREADY_EXISTS and leaves nothing behind', async () => {
    await worktrees.create(config('s1'));
    const session = await expectRejection(
      worktrees.create(config('s1', 'other')),
      'ALREADY_EXISTS',
    );
    expect(session.message).toContain('sessionId');
    const branch = await expectRejection(
      worktrees.create(config('s2', 'agent/s1')),
      'ALREADY_EXISTS',
    );
    expect(branch.message).toContain('agent/s1');
    expect(existsSync(path.join(area.root, 'app', 's2'))).toBe(false);
    expect(existsSync(path.join(area.root, 'app', '.owners', 's2.json'))).toBe(false);
  });

  it('restores the worktree of an existing branch after its directory was deleted', async () => {
    const info = await worktrees.create(config('s1'));
    await writeFile(path.join(info.path, 'work.txt'), 'committed work\n');
    await git(info.path, 'add', 'work.txt');
    await git(info.path, 'commit', '-q', '-m', 'work');
    await rm(info.path, { recursive: true, force: true });
    expect(await worktrees.exists(info.path)).toBe(false);
    const [stale] = await worktrees.list('app');
    expect(stale?.prunable).toBeDefined();

    const restored = await new WorktreeProvisioner({ root: area.root }).restore(
      config('s1'),
      info.path,
    );
    expect(restored.path).toBe(info.path);
    expect(await readFile(path.join(info.path, 'work.txt'), 'utf8')).toBe('committed work\n');
    expect(await git(info.path, 'symbolic-ref', '--short', 'HEAD')).toBe('agent/s1');
    const [listed] = await worktrees.list('app');
    expect(listed?.prunable).toBeUndefined();
    // Restoring a tree that is there is a no-op; a missing branch is NOT_FOUND.
    await worktrees.restore(config('s1'), info.path);
    const missing = await expectRejection(
      worktrees.restore(config('s9', 'no/such'), path.join(area.root, 'app', 's9')),
      'NOT_FOUND',
    );
    expect(missing.message).toContain('no/such');
    await expectRejection(
      worktrees.restore(config('s1'), path.join(area.root, 'app', 'elsewhere')),
      'INVALID_ARGUMENT',
    );
  });

  it('creates and destroys 20 worktrees in parallel, leaving git fsck clean and no stale entries', async () => {
    const ids = Array.from({ length: 20 }, (_, index) => `p${index}`);
    // Two provisioners at once, as two components of one process would.
    const second = new WorktreeProvisioner({ root: area.root });
    const infos = await Promise.all(
      ids.map((id, index) => (index % 2 ? worktrees : second).create(config(id))),
    );
    expect((await worktrees.list('app')).map((info) => info.sessionId).sort()).toEqual(
      [...ids].sort(),
    );
    const porcelain = await git(area.project, 'worktree', 'list', '--porcelain');
    for (const info of infos) expect(porcelain).toContain(info.path);
    await Promise.all(
      infos.map((info, index) => (index % 2 ? second : worktrees).destroy(info.path)),
    );
    await git(area.project, 'fsck', '--full', '--strict');
    const after = await git(area.project, 'worktree', 'list', '--porcelain');
    expect(after.split('\n').filter((line) => line.startsWith('worktree '))).toEqual([
      `worktree ${area.project}`,
    ]);
    expect(await worktrees.list('app')).toEqual([]);
    expect(await git(area.project, 'branch', '--list', 'agent/*')).toContain('agent/p19');
  });
});
