import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeTestArea, type TestArea } from '../test-support/test-project.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';

let area: TestArea;
let worktrees: WorktreeProvisioner;
beforeEach(async () => {
  area = await makeTestArea('post-create');
  worktrees = new WorktreeProvisioner({ root: area.root });
  await mkdir(path.join(area.project, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(area.project, 'node_modules', 'dep', 'index.js'), 'x');
});
afterEach(async () => {
  await area.cleanup();
});

const project = (extra: { symlinks?: string[]; postCreate?: string[] }) => ({
  path: area.project,
  defaultBranch: 'main',
  ...extra,
});
const create = (sessionId: string) =>
  worktrees.create({ projectId: 'app', project: project({}), sessionId, branch: `b/${sessionId}` });

describe('postCreate', () => {
  it('links existing project paths, skips missing ones, and runs commands in the tree', async () => {
    const info = await create('ok');
    const result = await worktrees.postCreate(
      info,
      project({
        symlinks: ['node_modules', 'missing/dir'],
        postCreate: ['pwd > where.txt', 'echo out; echo err >&2'],
      }),
    );
    expect(result.ok).toBe(true);
    expect(
      result.steps.map((step) => [step.kind, step.name, step.ok, step.skipped ?? false]),
    ).toEqual([
      ['symlink', 'node_modules', true, false],
      ['symlink', 'missing/dir', true, true],
      ['command', 'pwd > where.txt', true, false],
      ['command', 'echo out; echo err >&2', true, false],
    ]);
    expect(result.steps[3]?.output).toBe('out\nerr\n');
    expect(result.steps[3]?.exitCode).toBe(0);
    expect((await lstat(path.join(info.path, 'node_modules'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(info.path, 'node_modules'))).toBe(
      path.join(area.project, 'node_modules'),
    );
    expect((await readFile(path.join(info.path, 'where.txt'), 'utf8')).trim()).toBe(info.path);
    // The symlink is not uncommitted work; the command's file is.
    await git(info.path, 'clean', '-qf', 'where.txt');
    await worktrees.destroy(info.path);
    expect(existsSync(info.path)).toBe(false);
    expect(existsSync(path.join(area.project, 'node_modules', 'dep', 'index.js'))).toBe(true);
  });

  it("'fail' mode rejects with PROVISIONING_ERROR carrying the output and removes the tree", async () => {
    const info = await create('bad');
    const error = await expectRejection(
      worktrees.postCreate(
        info,
        project({ postCreate: ['true', 'echo broken install >&2; exit 3', 'touch never'] }),
      ),
      'PROVISIONING_ERROR',
    );
    expect(error.message).toContain('exit 3');
    expect(error.message).toContain('broken install');
    expect(error.details.step).toMatchObject({
      ok: false,
      exitCode: 3,
      output: 'broken install\n',
    });
    expect(existsSync(info.path)).toBe(false);
    expect(await worktrees.list('app')).toEqual([]);
    expect(await git(area.project, 'worktree', 'list', '--porcelain')).not.toContain(info.path);
  });

  it("'warn' mode runs every step and resolves with the failures, including a timeout", async () => {
    const info = await create('warn');
    const result = await worktrees.postCreate(
      info,
      project({ postCreate: ['exit 4', 'sleep 5', 'touch after'] }),
      { onFailure: 'warn', timeoutMs: 300 },
    );
    expect(result.ok).toBe(false);
    expect(result.failures.map((step) => [step.name, step.timeoutOccurred])).toEqual([
      ['exit 4', false],
      ['sleep 5', true],
    ]);
    expect(result.failures[1]?.output).toContain('timed out after 300 ms');
    expect(existsSync(path.join(info.path, 'after'))).toBe(true);
  });
});

describe('postCreate symlink entries', () => {
  it('refuses entries leaving the project or naming .git with INVALID_CONFIG before linking', async () => {
    const info = await create('escape');
    await mkdir(path.join(area.base, 'outside'));
    for (const [entry, index] of [
      ['../outside', 0],
      ['node_modules/../../x', 1],
      ['/etc', 0],
      ['.git/hooks', 0],
    ] as const) {
      const symlinks = index === 1 ? ['node_modules', entry] : [entry];
      const error = await expectRejection(
        worktrees.postCreate(info, project({ symlinks, postCreate: ['touch ran'] })),
        'INVALID_CONFIG',
      );
      expect(error.details.fields).toEqual([`project.symlinks.${index}`]);
    }
    expect(existsSync(path.join(info.path, 'ran'))).toBe(false);
    expect(existsSync(path.join(info.path, 'node_modules'))).toBe(false);
    expect(existsSync(path.join(area.base, 'x'))).toBe(false);
    // The tree was not removed: nothing ran.
    expect(existsSync(info.path)).toBe(true);
  });

  it('never follows a symbolic link in the tree or the project out of them', async () => {
    const info = await create('swapped');
    const outside = path.join(area.base, 'outside');
    await mkdir(outside);
    await mkdir(path.join(area.project, 'lib', 'cache'), { recursive: true });
    await mkdir(path.join(area.project, 'lib2'), { recursive: true });
    await writeFile(path.join(outside, 'secret'), 's');
    // The tree's `lib` is a link out of it (as an agent or a race could leave it).
    await symlink(outside, path.join(info.path, 'lib'));
    // The project's `linked` is a link out of it: nothing under it is a project path.
    await symlink(outside, path.join(area.project, 'linked'));
    const result = await worktrees.postCreate(
      info,
      project({ symlinks: ['lib/cache', 'linked/secret', 'lib2'] }),
      { onFailure: 'warn' },
    );
    expect(result.steps.map((step) => [step.name, step.ok])).toEqual([
      ['lib/cache', false],
      ['linked/secret', false],
      ['lib2', true],
    ]);
    expect(result.failures[0]?.output).toContain('symbolic link');
    expect(result.failures[1]?.output).toContain('symbolic link');
    expect(await readdir(outside)).toEqual(['secret']);
    expect((await lstat(path.join(info.path, 'lib2'))).isSymbolicLink()).toBe(true);
    const error = await expectRejection(
      worktrees.postCreate(info, project({ symlinks: ['lib/cache'] })),
      'PROVISIONING_ERROR',
    );
    expect(error.message).toContain('symbolic link');
    expect(existsSync(info.path)).toBe(false);
  });

  it('makes missing directories on the way to a nested link', async () => {
    await mkdir(path.join(area.project, 'packages', 'a', 'node_modules'), { recursive: true });
    const info = await create('nested');
    const result = await worktrees.postCreate(
      info,
      project({ symlinks: ['packages/a/node_modules', 'node_modules'] }),
    );
    expect(result.ok).toBe(true);
    expect(await readlink(path.join(info.path, 'packages', 'a', 'node_modules'))).toBe(
      path.join(area.project, 'packages', 'a', 'node_modules'),
    );
    const again = await worktrees.postCreate(info, project({ symlinks: ['node_modules'] }));
    expect(again.steps[0]?.skipped).toBe(true);
    // A project reached through a link is still the project.
    const alias = path.join(area.base, 'alias');
    await symlink(area.project, alias);
    const other = await create('aliased');
    const aliased = await worktrees.postCreate(other, {
      ...project({ symlinks: ['packages/a/node_modules'] }),
      path: alias,
    });
    expect(aliased.ok).toBe(true);
    expect(aliased.steps[0]?.skipped).toBeUndefined();
  });
});
