import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createWorkspace, listWorkspaceKinds } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerGitWorkspaceTypes } from '../index.js';
import { git, makeTestArea, type TestArea } from '../test-support/test-project.js';
import { GitWorkspace } from './git-workspace.js';
import { defaultProjectId } from './git-workspace-options.js';

let area: TestArea;
beforeEach(async () => {
  area = await makeTestArea('workspace');
});
afterEach(async () => {
  await area.cleanup();
});

const base = () => ({
  project: { path: area.project, defaultBranch: 'main' },
  root: area.root,
  projectId: 'app',
});

describe('GitWorkspace', () => {
  it('registers worktree and clone once the package is imported (idempotently)', () => {
    registerGitWorkspaceTypes();
    expect(listWorkspaceKinds()).toEqual(expect.arrayContaining(['worktree', 'clone']));
  });

  it('createWorkspace({ kind: "worktree" }) works in its tree and destroys it on close', async () => {
    const workspace = await createWorkspace({
      kind: 'worktree',
      ...base(),
      sessionId: 'w1',
      branch: 'agent/w1',
    });
    expect(workspace).toBeInstanceOf(GitWorkspace);
    expect(workspace.workingDir).toBe(path.join(area.root, 'app', 'w1'));
    const result = await workspace.executeCommand(
      'git rev-parse --abbrev-ref HEAD && cat README.md',
    );
    expect(result.stdout).toBe('agent/w1\n# project\n');
    await workspace.executeCommand("printf 'changed\\n' > README.md");
    expect(await workspace.gitChanges('.')).toEqual([{ status: 'UPDATED', path: 'README.md' }]);
    expect((await workspace.gitDiff('README.md')).modified).toBe('changed\n');
    await workspace.executeCommand('git commit -qam work');
    await workspace.close();
    expect(existsSync(workspace.workingDir)).toBe(false);
    expect(await git(area.project, 'log', '-1', '--format=%s', 'agent/w1')).toBe('work');
  });

  it('reports its identity: the tree as anchor, its projection and session', async () => {
    await using worktree = await GitWorkspace.create({
      kind: 'worktree',
      ...base(),
      sessionId: 'w1',
      branch: 'b/w1',
    });
    await using clone = await GitWorkspace.create({
      kind: 'clone',
      ...base(),
      sessionId: 'c1',
      branch: 'b/c1',
    });
    const [a, b] = await Promise.all([worktree.identity(), clone.identity()]);
    expect(a).toMatchObject({
      projectionKind: 'git_worktree',
      anchor: worktree.workingDir,
      cwd: worktree.workingDir,
    });
    expect(b).toMatchObject({ projectionKind: 'clone', anchor: clone.workingDir });
    expect(a.workspaceId).not.toBe(b.workspaceId);
  });

  it('close() refuses to destroy uncommitted work (tree kept) unless forceDestroy; keep keeps', async () => {
    const dirty = await GitWorkspace.create({
      kind: 'worktree',
      ...base(),
      sessionId: 'd1',
      branch: 'b/d1',
    });
    await dirty.executeCommand('echo wip > wip.txt');
    const error = await expectRejection(dirty.close(), 'FORBIDDEN');
    expect(error.message).toContain('"wip.txt"');
    expect(existsSync(path.join(dirty.workingDir, 'wip.txt'))).toBe(true);
    await dirty.provisioner.destroy(dirty.workingDir, { force: true });

    const forced = await GitWorkspace.create({
      kind: 'clone',
      ...base(),
      sessionId: 'f1',
      branch: 'b/f1',
      forceDestroy: true,
    });
    await forced.executeCommand('echo wip > wip.txt');
    await forced.close();
    expect(existsSync(forced.workingDir)).toBe(false);

    const kept = await GitWorkspace.create({
      kind: 'worktree',
      ...base(),
      sessionId: 'k1',
      branch: 'b/k1',
      onClose: 'keep',
    });
    await kept.close();
    expect(existsSync(path.join(kept.workingDir, 'README.md'))).toBe(true);
    // And it comes back, as the same branch, with restore.
    await kept.provisioner.destroy(kept.workingDir);
    await using restored = await GitWorkspace.create({
      kind: 'worktree',
      ...base(),
      sessionId: 'k1',
      branch: 'b/k1',
      restore: true,
    });
    expect((await restored.executeCommand('git branch --show-current')).stdout).toBe('b/k1\n');
  });

  it('runs post-create steps; a failing one in fail mode leaves no tree, in warn mode a result', async () => {
    const project = {
      ...base().project,
      postCreate: ['echo prepared > .prepared', 'echo nope >&2; exit 9'],
    };
    const error = await expectRejection(
      createWorkspace({ kind: 'worktree', ...base(), project, sessionId: 'p1', branch: 'b/p1' }),
      'PROVISIONING_ERROR',
    );
    expect(error.message).toContain('nope');
    expect(existsSync(path.join(area.root, 'app', 'p1'))).toBe(false);
    await using warned = await GitWorkspace.create({
      kind: 'clone',
      ...base(),
      project,
      sessionId: 'p2',
      branch: 'b/p2',
      onPostCreateFailure: 'warn',
      forceDestroy: true,
    });
    expect(warned.postCreateResult.failures.map((step) => step.exitCode)).toEqual([9]);
    expect(await readFile(path.join(warned.workingDir, '.prepared'), 'utf8')).toBe('prepared\n');
  });

  it('refuses bad config naming the field, and derives a safe default projectId', async () => {
    const error = await expectRejection(
      createWorkspace({
        kind: 'worktree',
        ...base(),
        sessionId: '../escape',
        branch: 'x',
        onClose: 'never',
      }),
      'INVALID_CONFIG',
    );
    expect(error.details.fields).toEqual(expect.arrayContaining(['sessionId', 'onClose']));
    await expectRejection(
      GitWorkspace.create({ kind: 'worktree', ...base(), sessionId: 's', branch: 'a..b' }),
      'INVALID_CONFIG',
    );
    expect(defaultProjectId('/src/my app')).toMatch(/^my-app-[0-9a-f]{8}$/);
    expect(defaultProjectId('/src/.hidden')).toMatch(/^hidden-[0-9a-f]{8}$/);
  });

  it('aborting creation rejects with ABORTED and removes the tree', async () => {
    const controller = new AbortController();
    const project = { ...base().project, postCreate: ['sleep 10'] };
    const creating = GitWorkspace.create(
      { kind: 'worktree', ...base(), project, sessionId: 'a1', branch: 'b/a1' },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 300);
    await expectRejection(creating, 'ABORTED');
    expect(existsSync(path.join(area.root, 'app', 'a1'))).toBe(false);
  });
});
